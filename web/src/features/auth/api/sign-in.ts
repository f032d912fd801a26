import { useMutation } from "@connectrpc/connect-query";
import { AuthService } from "@/gen/thumela/bff/v1/bff_pb";
import { z } from "@/lib/zod";

export const LOGIN_REQUIRED_MESSAGE = "Please enter both email and password.";
export const LOGIN_TOAST_FALLBACK = "Unable to login. Please try again.";
export const LOGIN_INLINE_FALLBACK = "Failed to login. Please check your credentials and try again.";

export const signInSchema = z.object({
  email: z.string().trim().min(1, LOGIN_REQUIRED_MESSAGE),
  password: z.string().min(1, LOGIN_REQUIRED_MESSAGE),
});
export type SignInValues = z.infer<typeof signInSchema>;

export function useSignIn() {
  return useMutation(AuthService.method.signIn);
}
