/**
 * The e-mail address waiting for its verification code, kept in sessionStorage so that a
 * reload of /otp-verification still knows where the code went. Never holds a secret.
 */
const KEY = "thumela.pendingVerification";

export interface PendingVerification {
  email: string;
  /** When the server allows the next resend (ms since epoch), if it said. */
  resendAvailableAt?: number;
}

export function savePendingVerification(pending: PendingVerification): void {
  try {
    window.sessionStorage.setItem(KEY, JSON.stringify(pending));
  } catch {
    // Storage blocked: router state still carries the e-mail for this visit.
  }
}

export function loadPendingVerification(): PendingVerification | undefined {
  try {
    const raw = window.sessionStorage.getItem(KEY);
    if (!raw) return undefined;
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === "object" && typeof (parsed as PendingVerification).email === "string") {
      const { email, resendAvailableAt } = parsed as PendingVerification;
      return { email, resendAvailableAt: typeof resendAvailableAt === "number" ? resendAvailableAt : undefined };
    }
  } catch {
    // Unreadable: treat as unknown.
  }
  return undefined;
}

export function clearPendingVerification(): void {
  try {
    window.sessionStorage.removeItem(KEY);
  } catch {
    // Nothing to clear.
  }
}
