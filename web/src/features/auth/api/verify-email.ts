import { useMutation } from "@connectrpc/connect-query";
import { AuthService } from "@/gen/thumela/bff/v1/bff_pb";

export const OTP_LENGTH = 6;
export const RESEND_COUNTDOWN_SECONDS = 60;
export const VERIFY_FAILURE_FALLBACK = "Unable to verify your code. Please try again.";
export const RESEND_FAILURE_FALLBACK = "Unable to resend the code. Please try again.";

/** Keeps digits only, at most six. */
export function sanitizeOtp(value: string): string {
  return value.replace(/\D/g, "").slice(0, OTP_LENGTH);
}

export function useVerifyEmail() {
  return useMutation(AuthService.method.verifyEmail);
}

export function useResendCode() {
  return useMutation(AuthService.method.resendCode);
}
