import { useMutation } from "@connectrpc/connect-query";
import { z } from "zod";
import { AuthService } from "@/gen/thumela/bff/v1/bff_pb";

export const MIN_PASSWORD_LENGTH = 8;
export const SIGNUP_REQUIRED_MESSAGE = "Please fill in all required fields.";
export const SIGNUP_MISMATCH_MESSAGE = "Passwords don't match. Please make sure your passwords match.";
export const SIGNUP_SHORT_PASSWORD_MESSAGE = `Password must be at least ${MIN_PASSWORD_LENGTH} characters.`;
export const SIGNUP_EMAIL_MESSAGE = "Please enter a valid email address.";
export const SIGNUP_FAILURE_FALLBACK = "Unable to register. Please try again.";

export const signUpSchema = z
  .object({
    firstName: z.string().trim().min(1, SIGNUP_REQUIRED_MESSAGE),
    lastName: z.string().trim().min(1, SIGNUP_REQUIRED_MESSAGE),
    email: z
      .string()
      .trim()
      .min(1, SIGNUP_REQUIRED_MESSAGE)
      .pipe(z.email(SIGNUP_EMAIL_MESSAGE)),
    password: z.string().min(1, SIGNUP_REQUIRED_MESSAGE).min(MIN_PASSWORD_LENGTH, SIGNUP_SHORT_PASSWORD_MESSAGE),
    confirmPassword: z.string(),
  })
  .refine((values) => values.password === values.confirmPassword, {
    message: SIGNUP_MISMATCH_MESSAGE,
    path: ["confirmPassword"],
    // Judge the match only once the password itself is acceptable.
    when: (payload) => signUpSchemaPasswordOk(payload.value),
  });
export type SignUpValues = z.infer<typeof signUpSchema>;

function signUpSchemaPasswordOk(value: unknown): boolean {
  const password = (value as { password?: unknown } | undefined)?.password;
  return typeof password === "string" && password.length >= MIN_PASSWORD_LENGTH;
}

/** Field order decides which message the form shows first. */
export const SIGNUP_FIELDS = ["firstName", "lastName", "email", "password", "confirmPassword"] as const;

export function useSignUp() {
  return useMutation(AuthService.method.signUp);
}
