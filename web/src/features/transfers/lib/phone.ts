/**
 * A South African mobile number as DECISIONS.md shows it: E.164 "+27821234567" → "+27 82 123 4567".
 * Anything else (an older record, a number typed as 082…) is shown as stored.
 */
export function formatPhone(phone: string): string {
  const match = /^\+27(\d{2})(\d{3})(\d{4})$/.exec(phone.replace(/\s+/g, ""));
  return match ? `+27 ${match[1]} ${match[2]} ${match[3]}` : phone;
}
