/**
 * Sample recipients for quick links such as /send-money?recipient=mom (the spec's "four preset
 * recipient keys"). They only prefill the form; the sender can change every field.
 */
export interface PresetRecipient {
  name: string;
  /** A South African mobile number as people write it (08x…); the server stores E.164. */
  phone: string;
}

export const PRESET_RECIPIENTS = {
  mom: { name: "Nomvula Dlamini", phone: "082 555 0143" },
  dad: { name: "Sipho Dlamini", phone: "083 555 0178" },
  sister: { name: "Lerato Dlamini", phone: "084 555 0121" },
  brother: { name: "Thabo Dlamini", phone: "081 555 0196" },
} as const satisfies Record<string, PresetRecipient>;

export type PresetRecipientKey = keyof typeof PRESET_RECIPIENTS;

/** The preset for a key, case-insensitive; undefined for anything else (a real name). */
export function presetRecipient(key: string | null | undefined): PresetRecipient | undefined {
  if (!key) return undefined;
  const normalized = key.trim().toLowerCase();
  return Object.hasOwn(PRESET_RECIPIENTS, normalized)
    ? PRESET_RECIPIENTS[normalized as PresetRecipientKey]
    : undefined;
}
