/**
 * South African mobile numbers travel in E.164 (`+27821234567`, DECISIONS.md) and are shown
 * grouped the way people write them: `+27 82 123 4567`. Anything else is shown as it is.
 */
export function formatPhone(e164: string): string {
  const match = /^\+27(\d{2})(\d{3})(\d{4})$/.exec(e164.trim());
  return match ? `+27 ${match[1]} ${match[2]} ${match[3]}` : e164;
}

/**
 * A number as a phone field shows it when the page fills it in (a saved recipient picked, the
 * phone of a Send Similar or Resend link): a South African mobile in any notation it came in
 * ("+27821234567", "0821234567") → "+27 82 123 4567"; anything else as given, trimmed, for the
 * sender to see and correct.
 */
export function phoneForField(text: string): string {
  const e164 = saMobileE164(text);
  return e164 ? formatPhone(e164) : text.trim();
}

/** The spec's placeholder for a phone number field (section 2, Account). */
export const PHONE_PLACEHOLDER = "+27 XX XXX XXXX";

export const INVALID_MOBILE = "Please enter a valid South African mobile number.";

// South Africa's mobile numbers (national significant number, 9 digits), as libphonenumber's
// metadata lists them (github.com/nyaruka/phonenumbers v1.8.1, the library the transfers
// service's ParsePhone uses): mostly 06x, 07x, 081–085 and some 087 blocks, plus a few small
// ranges that are mobile or fixed-line alike. None of them is also a toll-free, shared-cost,
// premium or VoIP number, which the server refuses.
const ZA_MOBILE =
  /^(?:(?:1(?:3492[0-25]|4495[0235]|549(?:20|5[01]))|4[34]492[01])\d{3}|8[1-4]\d{7}|(?:2[27]|47|54)4950\d{3}|(?:1(?:049[2-4]|9[12]\d\d)|(?:50[0-2]|[67]\d\d)\d\d|8(?:5\d{3}|7(?:08[67]|158|28[5-9]|310)))\d{4}|(?:1[6-8]|28|3[2-69]|4[025689]|5[36-8])4920\d{3}|(?:12|[2-5]1)492\d{4})$/;

// A South African number as libphonenumber first reads it (its "general" pattern).
const ZA_NUMBER = /^(?:[1-79]\d{8}|8\d{4,9})$/;

/** Digits without South Africa's national prefix 0 (one, as libphonenumber strips it). */
const withoutTrunkZero = (digits: string) => (digits.startsWith("0") ? digits.slice(1) : digits);

/**
 * A South African mobile number in any common notation ("082 123 4567", "0821234567",
 * "+27 82 123 4567", "27821234567", "(082) 123-4567", "0027 82 123 4567") → E.164 (+27…);
 * undefined for anything else (landlines, service numbers, other countries, letters). It
 * accepts and refuses what the transfers service's ParsePhone does (libphonenumber's parse for
 * region ZA, mobile numbers only), so a form can refuse a number before the server would:
 * services/transfers/internal/domain/phone.go. The server stays the authority.
 */
export function saMobileE164(text: string): string | undefined {
  const trimmed = text.trim();
  // The server's own first check: at most 32 characters, digits and + - ( ) . and spaces.
  if (trimmed === "" || trimmed.length > 32 || !/^[\d +().-]+$/.test(trimmed)) return undefined;
  // libphonenumber starts at the first + or digit and takes plus signs only there (the Go
  // port keeps a trailing +, so "0821234567+" is refused too).
  const number = trimmed.slice(Math.max(0, trimmed.search(/[+\d]/)));
  if (!/^\+*[^+]*$/.test(number)) return undefined;
  const digits = number.replace(/\D/g, "");
  const national = nationalNumber(digits, number.startsWith("+"));
  if (national === undefined) return undefined;
  // The national prefix 0 goes when at least 5 digits remain ("0821234567" → "821234567").
  const nsn = national.length >= 6 ? withoutTrunkZero(national) : national;
  return ZA_MOBILE.test(nsn) ? `+27${nsn}` : undefined;
}

/**
 * The digits after South Africa's country code, or all of them when there is none; undefined
 * when they name another country (or none that exists). `international` says the number
 * started with +.
 */
function nationalNumber(digits: string, international: boolean): string | undefined {
  // After "00" (the international prefix dialled from South Africa) unless a 0 follows it.
  const afterIdd = digits.startsWith("00") && digits[2] !== undefined && digits[2] !== "0" ? digits.slice(2) : undefined;
  if (international) {
    if (digits.startsWith("27")) return digits.slice(2);
    // A code that is no country's ("+0…"): read again without the +, as libphonenumber does.
    if (digits.startsWith("0") && afterIdd?.startsWith("27")) return afterIdd.slice(2);
    return undefined;
  }
  if (afterIdd !== undefined) return afterIdd.startsWith("27") ? afterIdd.slice(2) : undefined;
  if (digits.startsWith("27")) {
    // "27821234567": 27 is the country code when the rest makes a South African number and
    // the whole does not, or the whole is too long to be one.
    const rest = withoutTrunkZero(digits.slice(2));
    if ((!ZA_NUMBER.test(digits) && ZA_NUMBER.test(rest)) || digits.length > 10) return rest;
  }
  return digits;
}
