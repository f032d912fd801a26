import { useMutation } from "@connectrpc/connect-query";
import { AuthService } from "@/gen/thumela/bff/v1/bff_pb";
import { MAX_NAME_LENGTH, nameIssue } from "@/lib/person-name";
import { z } from "@/lib/zod";

export const MIN_PASSWORD_LENGTH = 8;
export const SIGNUP_REQUIRED_MESSAGE = "Please fill in all required fields.";
export const SIGNUP_MISMATCH_MESSAGE = "Passwords don't match. Please make sure your passwords match.";
export const SIGNUP_SHORT_PASSWORD_MESSAGE = `Password must be at least ${MIN_PASSWORD_LENGTH} characters.`;
export const SIGNUP_EMAIL_MESSAGE = "Please enter a valid email address.";
export const SIGNUP_FAILURE_FALLBACK = "Unable to register. Please try again.";
export { MAX_NAME_LENGTH };
export const SIGNUP_NAME_LENGTH_MESSAGE = `Names must be at most ${MAX_NAME_LENGTH} characters.`;

/** A name by the server's rule (lib/person-name), refused in identity's words. */
const name = (label: "First name" | "Last name") =>
  z
    .string()
    .trim()
    .min(1, SIGNUP_REQUIRED_MESSAGE)
    .superRefine(nameIssue(`${label} must include at least one letter.`))
    .max(MAX_NAME_LENGTH, SIGNUP_NAME_LENGTH_MESSAGE);

export const signUpSchema = z
  .object({
    firstName: name("First name"),
    lastName: name("Last name"),
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

/** A referral code as /signup?ref= carries it: "THU-" and 8 Crockford base32 characters. */
const REFERRAL_CODE_PATTERN = /^THU-[0-9A-HJKMNP-TV-Z]{8}$/;

/**
 * The code of a friend's link, trimmed and upper-cased as identity stores it; undefined when
 * there is none, "invalid" when it cannot be a code (identity would refuse it).
 */
export function referralCodeFrom(ref: string | null): string | undefined | "invalid" {
  const code = ref?.trim().toUpperCase() ?? "";
  if (!code) return undefined;
  return REFERRAL_CODE_PATTERN.test(code) ? code : "invalid";
}
