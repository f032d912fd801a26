/**
 * A user's referral code, derived from their user id so it is the same on every device and
 * visit without storing anything: "THU-" + 8 characters of Crockford base32 (no I, L, O or U,
 * so it reads aloud and types without confusion) taken from the 64-bit FNV-1a hash of the
 * id's UTF-8 bytes. 8 characters carry 40 bits, so two users share a code only about once in a
 * trillion pairs. The transfers service derives codes the same way and owns code → user:
 * /refer-friend shows the code GetCredit answers, never this one; it is kept as the reference
 * of the derivation (its test pins the values the server must give).
 */
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;
export const REFERRAL_CODE_LENGTH = 8;

export function fnv1a64(text: string): bigint {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * FNV_PRIME) & MASK_64;
  }
  return hash;
}

export function referralCode(userId: string): string {
  let hash = fnv1a64(userId);
  let code = "";
  for (let i = 0; i < REFERRAL_CODE_LENGTH; i++) {
    code += CROCKFORD[Number(hash & 31n)];
    hash >>= 5n;
  }
  return `THU-${code}`;
}

/** The sign-up link a friend opens: /signup?ref=<code> on this site. */
export function referralLink(code: string, origin = window.location.origin): string {
  return `${origin}/signup?ref=${encodeURIComponent(code)}`;
}
