/**
 * The one rule for a person's name, as every service applies it (services/platform/personname):
 * the account holder's names (sign-up, the profile) and a recipient's (the send-money wizard, the
 * recipients page). The forms refuse here, in the services' words, what the server would refuse;
 * the server still decides.
 */

/** The longest name, in characters, after trimming. */
export const MAX_NAME_LENGTH = 50;

export const NAME_CHARACTERS_MESSAGE = "Names may only contain letters, spaces, apostrophes, hyphens and full stops.";

export const NAME_WEB_ADDRESS_MESSAGE = "Names can't contain a web address.";

/**
 * The transfers service's words for a recipient's name without a letter (the wizard's and the
 * recipients page's; the account's names have their own services' words).
 */
export const RECIPIENT_NAME_NO_LETTER = "The recipient's name must include at least one letter.";

/**
 * Letters and combining marks of any script, spaces (U+0020 and the other space separators a
 * pasted name carries), apostrophes (' and ’), hyphens and full stops: no control, format or
 * bidirectional-override character, digit, symbol or emoji.
 */
const NAME_CHARACTERS = /^[\p{L}\p{M}\p{Zs}'’.-]*$/u;

/**
 * A web address, as personname's webAddress pattern finds it (change both together): a full stop
 * followed directly by two or more letters of any script (every host name ends in one: ".za",
 * ".com"), combining marks not parting them; or a letter that looks like a full stop or a middle
 * dot (Lisu ꓸ, ꞏ, Canadian syllabics ᐧ, Hangul ㆍ and ᆞ) followed by two Latin letters. An initial
 * ("J.R.R.", "J. R. R.", "St. John") is a full stop followed by one letter or a space.
 */
const WEB_ADDRESS = /\.\p{M}*(?:\p{L}\p{M}*){2}|[\u{A4F8}\u{A78F}\u{1427}\u{318D}\u{119E}]\p{M}*(?:\p{Script=Latin}\p{M}*){2}/u;

const LETTER = /\p{L}/u;

/**
 * Letters and marks that draw nothing, as personname's invisible finds them (change both
 * together): the Hangul fillers, the combining grapheme joiner and the other default-ignorable
 * code points, and the variation selectors. A name of fillers reads as blank.
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Variation_Selector}]/u;

/**
 * More combining marks in a row than personname.MaxMarks (3): no name stacks more on one letter,
 * and a pile of them draws over the lines around the name.
 */
const MARK_PILE = /\p{M}{4}/u;

/**
 * A character a reader cannot see for what it is, as personname.Hidden finds it (change both
 * together): a control, a format character (the bidirectional overrides such as U+202E, zero-width
 * spaces and joiners, the soft hyphen, the byte order mark), a private-use, surrogate or
 * unassigned code point, a line or paragraph separator.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Zl}\p{Zp}]/u;

/**
 * The punctuation that reads as a full stop in a host name, as personname's fullStop maps it
 * (change both together): the ideographic, fullwidth, halfwidth and small full stops, the one-dot
 * leader, and the middle dots a reader would type as one.
 */
const FULL_STOP_LOOKALIKES = /[\u3002\uFF0E\uFF61\uFE52\u2024\u00B7\u0387\u2027\u2219\u22C5\u30FB\uFF65]/gu;

/**
 * personname.Hidden for short text other than a name that Thumela shows as its own words (a
 * transfer's withdrawal location): whether it holds a character a reader cannot see. A name never
 * holds one (nameProblem refuses it with the other characters).
 */
export function hasHiddenCharacter(text: string): boolean {
  return HIDDEN.test(text);
}

/**
 * personname.HasWebAddress: the names' web-address rule (WEB_ADDRESS) for short text other than a
 * name, which may hold punctuation a name may not, so the full-stop look-alikes ("fnb。co。za",
 * "fnb·co·za") count as full stops. For a name it answers as nameProblem does.
 */
export function hasWebAddress(text: string): boolean {
  return WEB_ADDRESS.test(text.replace(FULL_STOP_LOOKALIKES, "."));
}

/**
 * Why the server would refuse a name (trimmed, not empty) beyond its length: a character outside
 * the rule, no letter at all (`noLetter`, each form's own words for it, as its service says it),
 * a web address. In the server's order; undefined when it would accept the name.
 */
export function nameProblem(name: string, noLetter: string): string | undefined {
  if (!NAME_CHARACTERS.test(name) || INVISIBLE.test(name) || MARK_PILE.test(name)) return NAME_CHARACTERS_MESSAGE;
  if (!LETTER.test(name)) return noLetter;
  if (WEB_ADDRESS.test(name)) return NAME_WEB_ADDRESS_MESSAGE;
  return undefined;
}

/**
 * nameProblem as a zod check of a trimmed string field: `.superRefine(nameIssue(noLetter))`. An
 * empty value is the field's "required" check's to refuse, not this one's.
 */
export function nameIssue(noLetter: string) {
  return (value: string, ctx: { addIssue: (issue: { code: "custom"; message: string }) => void }) => {
    const problem = value ? nameProblem(value, noLetter) : undefined;
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  };
}
