import { useMutation } from "@connectrpc/connect-query";
import { AuthService } from "@/gen/thumela/bff/v1/bff_pb";
import { z } from "@/lib/zod";
import {
  CONFIRM_PASSWORD_REQUIRED,
  MIN_PASSWORD_LENGTH,
  NEW_PASSWORD_TOO_SHORT,
  PASSWORDS_DO_NOT_MATCH,
} from "./password";

export const RESET_CODE_LENGTH = 6;
export const RESET_SENT_MESSAGE = "If an account exists for that email, we've sent a 6-digit code.";
export const RESET_EMAIL_REQUIRED = "Please enter your email address.";
export const RESET_EMAIL_INVALID = "Please enter a valid email address.";
export const RESET_CODE_REQUIRED = "Please enter the 6-digit code.";
export const RESET_REQUEST_FALLBACK = "Unable to send a reset code. Please try again.";
export const RESET_FAILURE_FALLBACK = "Unable to reset your password. Please try again.";
export const RESEND_FAILURE_FALLBACK = "Unable to resend the code. Please try again.";

export const resetEmailSchema = z.object({
  email: z.string().trim().min(1, RESET_EMAIL_REQUIRED).pipe(z.email(RESET_EMAIL_INVALID)),
});
export type ResetEmailValues = z.infer<typeof resetEmailSchema>;

export const resetPasswordSchema = z
  .object({
    code: z.string().regex(/^\d{6}$/, RESET_CODE_REQUIRED),
    newPassword: z.string().min(MIN_PASSWORD_LENGTH, NEW_PASSWORD_TOO_SHORT),
    confirmPassword: z.string().min(1, CONFIRM_PASSWORD_REQUIRED),
  })
  .refine((values) => values.newPassword === values.confirmPassword, {
    message: PASSWORDS_DO_NOT_MATCH,
    path: ["confirmPassword"],
  });
export type ResetPasswordValues = z.infer<typeof resetPasswordSchema>;

export function useRequestPasswordReset() {
  return useMutation(AuthService.method.requestPasswordReset);
}

export function useResetPassword() {
  return useMutation(AuthService.method.resetPassword);
}

export function useResendResetCode() {
  return useMutation(AuthService.method.resendCode);
}
