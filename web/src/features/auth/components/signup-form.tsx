import { timestampMs } from "@bufbuild/protobuf/wkt";
import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useNavigate } from "react-router";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { FormAlert } from "@/components/ui/form-alert";
import { Input, Label } from "@/components/ui/input";
import { PasswordInput } from "@/components/ui/password-input";
import { errorMessage } from "@/lib/errors";
import { savePendingVerification } from "../api/pending-verification";
import type { PendingVerification } from "../api/pending-verification";
import {
  MAX_NAME_LENGTH,
  MIN_PASSWORD_LENGTH,
  SIGNUP_FAILURE_FALLBACK,
  SIGNUP_FIELDS,
  signUpSchema,
  useSignUp,
} from "../api/sign-up";
import type { SignUpValues } from "../api/sign-up";

const EMPTY: SignUpValues = { firstName: "", lastName: "", email: "", password: "", confirmPassword: "" };

export function SignUpForm() {
  const navigate = useNavigate();
  const signUp = useSignUp();
  const [serverError, setServerError] = useState<string>();
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<SignUpValues>({ resolver: zodResolver(signUpSchema), defaultValues: EMPTY });

  const onSubmit = async (values: SignUpValues) => {
    setServerError(undefined);
    try {
      const response = await signUp.mutateAsync(values);
      const pending: PendingVerification = {
        email: response.email || values.email,
        resendAvailableAt: response.resendAvailableAt ? timestampMs(response.resendAvailableAt) : undefined,
      };
      savePendingVerification(pending);
      // The same words whether or not the address already has an account (the server answers
      // alike and e-mails an existing owner instead): the form must not tell who banks with us.
      toast.success("Check your email", {
        description: `We've sent a 6-digit code to ${pending.email}. Enter it to finish creating your account.`,
      });
      navigate("/otp-verification", { state: pending });
    } catch (error) {
      console.error("Sign-up failed", error);
      const message = errorMessage(error, SIGNUP_FAILURE_FALLBACK);
      toast.error("Registration failed", { description: message });
      setServerError(message);
    }
  };

  const message = SIGNUP_FIELDS.map((field) => errors[field]?.message).find(Boolean) ?? serverError;
  const invalid = (field: keyof SignUpValues) => (errors[field] ? true : undefined);
  const busy = signUp.isPending;

  return (
    <form noValidate onSubmit={handleSubmit(onSubmit)} className="space-y-5" aria-describedby="signup-error">
      <FormAlert id="signup-error" message={message} />
      <div className="grid gap-5 sm:grid-cols-2">
        <div>
          <Label htmlFor="signup-first-name">First name</Label>
          <Input
            id="signup-first-name"
            autoComplete="given-name"
            maxLength={MAX_NAME_LENGTH}
            aria-invalid={invalid("firstName")}
            {...register("firstName")}
          />
        </div>
        <div>
          <Label htmlFor="signup-last-name">Last name</Label>
          <Input
            id="signup-last-name"
            autoComplete="family-name"
            maxLength={MAX_NAME_LENGTH}
            aria-invalid={invalid("lastName")}
            {...register("lastName")}
          />
        </div>
      </div>
      <div>
        <Label htmlFor="signup-email">Email</Label>
        <Input
          id="signup-email"
          type="email"
          autoComplete="email"
          placeholder="you@example.co.za"
          aria-invalid={invalid("email")}
          {...register("email")}
        />
      </div>
      <div>
        <Label htmlFor="signup-password">Password</Label>
        <PasswordInput
          id="signup-password"
          autoComplete="new-password"
          aria-invalid={invalid("password")}
          aria-describedby="signup-password-hint"
          {...register("password")}
        />
        <p id="signup-password-hint" className="mt-1.5 text-xs text-slate-500 dark:text-slate-400">
          At least {MIN_PASSWORD_LENGTH} characters. Avoid common passwords and your email address.
        </p>
      </div>
      <div>
        <Label htmlFor="signup-confirm-password">Confirm password</Label>
        <PasswordInput
          id="signup-confirm-password"
          autoComplete="new-password"
          aria-invalid={invalid("confirmPassword")}
          {...register("confirmPassword")}
        />
      </div>
      <Button type="submit" size="lg" className="w-full" busy={busy}>
        {busy ? "Creating account..." : "Create Account"}
      </Button>
    </form>
  );
}
