/**
 * South African mobile numbers travel in E.164 (`+27821234567`, DECISIONS.md) and are shown
 * grouped the way people write them: `+27 82 123 4567`. Anything else is shown as it is.
 */
export function formatPhone(e164: string): string {
  const match = /^\+27(\d{2})(\d{3})(\d{4})$/.exec(e164.trim());
  return match ? `+27 ${match[1]} ${match[2]} ${match[3]}` : e164;
}
