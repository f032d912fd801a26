import { failureToast } from "@/lib/failure-toast";

/**
 * The sign-in flow's error toasts, one per action, each dismissed when its action (or the
 * flow's end) succeeds: a password or passkey sign-in ("Login failed", also said when the
 * e-mail is unverified and the OTP screen follows), the sign-up, the e-mailed code's
 * verification and its resend.
 */
export const SIGN_IN_FAILED = failureToast("sign-in-failed");
export const SIGN_UP_FAILED = failureToast("sign-up-failed");
export const VERIFY_FAILED = failureToast("verify-email-failed");
export const RESEND_FAILED = failureToast("resend-code-failed");
