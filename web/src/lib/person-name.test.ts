import { describe, expect, it } from "vitest";
import {
  NAME_CHARACTERS_MESSAGE,
  NAME_WEB_ADDRESS_MESSAGE,
  hasHiddenCharacter,
  hasWebAddress,
  nameIssue,
  nameProblem,
} from "./person-name";

const NO_LETTER = "The recipient's name must include at least one letter.";

describe("nameProblem (services/platform/personname's rule)", () => {
  it.each([
    "Thandi",
    "J. R. R. Tolkien",
    "J.R.R. Tolkien",
    "J.R.R.",
    "Mary-Jane O'Neil",
    "N’Dour",
    "St. John",
    "O'Brien-Ndlovu Jr.",
    "Dr. Nkosazana Dlamini-Zuma",
    "A.B. de Villiers",
    "Nomvuyiseko Wilhelmina-Christina",
    "Riëtte Coetzée",
    "Zanelé Mbatha",
    "Ds. Bêrend Oosthuizen",
    "Zoe\u0308", // a combining diaeresis
    "van der\u00a0Merwe",
    "Ἀθηνᾶ",
    "张伟",
    "ᒥᐧᔦᐤ", // Canadian syllabics: its dot-shaped letter inside a word of its own script
  ])("accepts %j", (name) => {
    expect(nameProblem(name, NO_LETTER)).toBeUndefined();
  });

  it.each([
    "Visit fnb-secure.co.za",
    "www.fnb-help.co.za",
    "fnb.co",
    "Thandi .com",
    ".za",
    "St.John",
    "J.R.R.Tolkien",
    "mtn.рф",
    "fnb.c\u0301om", // a mark does not part the letters
    "fnb-secure\u00a0.co",
    "fnb-secureꓸcoꓸza", // Lisu U+A4F8 looks like a full stop
    "fnbꞏcom",
    "fnbᐧcom",
    "fnbㆍcom",
  ])("refuses the web address %j", (name) => {
    expect(nameProblem(name, NO_LETTER)).toBe(NAME_WEB_ADDRESS_MESSAGE);
  });

  it.each([
    "Thandi\u0000",
    "\u202eisoknN",
    "Tha\u200bndi",
    "Thandi2",
    "<b>Thandi</b>",
    "Thandi 😀",
    "Thandi\tNkosi",
    "fnb。co。za",
    "fnb．co．za",
    "fnb·co·za",
    "fnb/co",
    // Letters and marks that draw nothing, as personname refuses them.
    "\u3164",
    "\uffa0",
    "Sipho\u115fDlamini",
    "Sipho\u034fDlamini",
    "Sipho\u17b4",
    "Sipho\ufe0fDlamini",
    "Sipho\u{E0100}",
    "Sipho\u180bDlamini",
    // More marks on one letter than MaxMarks.
    "Sipho\u0301\u0301\u0301\u0301",
    "Sipho" + "\u0301".repeat(40),
  ])("refuses the characters of %j", (name) => {
    expect(nameProblem(name, NO_LETTER)).toBe(NAME_CHARACTERS_MESSAGE);
  });

  it.each(["Nguye\u0323\u0302n", "Nguyễn", "สมศักดิ์", "a\u0301\u0302\u0303"])("accepts the marks real names stack, %j", (name) => {
    expect(nameProblem(name, NO_LETTER)).toBeUndefined();
  });

  it("refuses a name without a letter in the form's own words, characters first", () => {
    expect(nameProblem("-", NO_LETTER)).toBe(NO_LETTER);
    expect(nameProblem("'.'", NO_LETTER)).toBe(NO_LETTER);
    expect(nameProblem("-1", NO_LETTER)).toBe(NAME_CHARACTERS_MESSAGE);
    expect(nameProblem("fnb.co.za 1", NO_LETTER)).toBe(NAME_CHARACTERS_MESSAGE);
  });
});

describe("nameIssue", () => {
  const issues = (value: string) => {
    const added: string[] = [];
    nameIssue(NO_LETTER)(value, { addIssue: (issue) => added.push(issue.message) });
    return added;
  };

  it("adds the problem as the field's issue, and none for an empty value (the required check's)", () => {
    expect(issues("Visit fnb-secure.co.za")).toEqual([NAME_WEB_ADDRESS_MESSAGE]);
    expect(issues("Thandi")).toEqual([]);
    expect(issues("")).toEqual([]);
  });
});

// personname.Hidden and HasWebAddress (personname_test.go's cases): the names' rules for other
// short text, such as a transfer's withdrawal location.
describe("hasHiddenCharacter", () => {
  it.each([
    "\u0000", "\u001b", "\u0007", "\t", "\n", "\u0085", "\u202e", "\u202a", "\u2066", "\u2069", "\u200b",
    "\u200c", "\u200d", "\u200e", "\u200f", "\u00ad", "\u2060", "\ufeff", "\u2028", "\u2029", "\ue000",
    "\u{F0000}", "\u{E0001}", "\ud800",
  ])("finds %j", (c) => {
    expect(hasHiddenCharacter(`Tha${c}ndi`)).toBe(true);
  });

  it.each(["a", "é", "\u0301", "李", "0", "٣", ",", "&", "(", ".", "·", "😀", "R", " ", "\u00a0", "\u3000"])(
    "does not find %j",
    (c) => {
      expect(hasHiddenCharacter(`Tha${c}ndi`)).toBe(false);
    },
  );
});

describe("hasWebAddress", () => {
  it.each([
    "www.example.com",
    "https://x.co",
    "Visit fnb-secure.co.za today",
    "St.Georges Mall",
    "fnb-secure。co。za",
    "fnb-secure．co．za",
    "fnb-secure｡co｡za",
    "fnb-secure﹒co﹒za",
    "fnb-secure․co․za",
    "fnb-secure·co·za",
    "fnb-secure·co",
    "fnb-secure・co",
    "fnb-secureꓸcoꓸza",
    "fnb.c\u0301om",
  ])("finds one in %j", (text) => {
    expect(hasWebAddress(text)).toBe(true);
  });

  it.each([
    "Sandton City",
    "Café Mall",
    "Shop 12, Mall of Africa (Midrand) & Co.",
    "St. George's Mall",
    "J.R.R. Tolkien",
    "Unit 4.12",
    "No. 5 · Main Road",
    "ᒥᐧᔦᐤ",
    "Aꓸb",
    "",
  ])("finds none in %j", (text) => {
    expect(hasWebAddress(text)).toBe(false);
  });

  it.each(["Visit fnb-secure.co.za", "J.R.R.Tolkien", "J. R. R. Tolkien", "St. John", "fnb-secureꓸcoꓸza", "Thandi"])(
    "agrees with nameProblem on the name %j",
    (name) => {
      expect(hasWebAddress(name)).toBe(nameProblem(name, NO_LETTER) === NAME_WEB_ADDRESS_MESSAGE);
    },
  );
});
