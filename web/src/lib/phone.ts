/**
 * South African mobile numbers travel in E.164 (`+27821234567`, DECISIONS.md) and are shown
 * grouped the way people write them: `+27 82 123 4567`. Anything else is shown as it is.
 */
export function formatPhone(e164: string): string {
  const match = /^\+27(\d{2})(\d{3})(\d{4})$/.exec(e164.trim());
  return match ? `+27 ${match[1]} ${match[2]} ${match[3]}` : e164;
}

/** The spec's placeholder for a phone number field (section 2, Account). */
export const PHONE_PLACEHOLDER = "+27 XX XXX XXXX";

export const INVALID_MOBILE = "Please enter a valid South African mobile number.";

/**
 * A South African mobile number in any common notation ("082 123 4567", "0821234567",
 * "+27 82 123 4567", "27821234567", "(082) 123-4567") → E.164 (+27…); undefined for anything
 * else (landlines, service numbers, other countries). A first check for forms: the server's
 * (libphonenumber's) is the authority.
 */
export function saMobileE164(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^[+\d\s().-]+$/.test(trimmed)) return undefined;
  const digits = trimmed.replace(/\D/g, "");
  const national = /^(?:27|0)(\d{9})$/.exec(digits)?.[1];
  if (!national || (trimmed.startsWith("+") && !digits.startsWith("27"))) return undefined;
  // Mobile ranges: 06x, 07x (not 075), 081 to 085.
  return /^(?:6\d|7[0-46-9]|8[1-5])\d{7}$/.test(national) ? `+27${national}` : undefined;
}
