import { timestampMs } from "@bufbuild/protobuf/wkt";
import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { Controller, useForm } from "react-hook-form";
import { useNavigate } from "react-router";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { FieldError } from "@/components/ui/field-error";
import { FormAlert } from "@/components/ui/form-alert";
import { Input, Label } from "@/components/ui/input";
import { PasswordInput } from "@/components/ui/password-input";
import {
  RESEND_FAILURE_FALLBACK,
  RESET_CODE_LENGTH,
  RESET_FAILURE_FALLBACK,
  RESET_REQUEST_FALLBACK,
  resetEmailSchema,
  resetPasswordSchema,
  useRequestPasswordReset,
  useResendResetCode,
  useResetPassword,
} from "@/features/account/api/password-reset";
import type { ResetEmailValues, ResetPasswordValues } from "@/features/account/api/password-reset";
import { MIN_PASSWORD_LENGTH } from "@/features/account/api/password";
import { sanitizeOtp, RESEND_COUNTDOWN_SECONDS } from "@/features/auth/api/verify-email";
import { useCountdown } from "@/features/auth/components/use-countdown";
import { ResendCode } from "@/features/auth/components/resend-code";
import { useFocusOnOpen } from "@/features/auth/components/use-focus-on-open";
import { CodePurpose } from "@/gen/thumela/bff/v1/bff_pb";
import { errorMessage } from "@/lib/errors";
import { failureToast } from "@/lib/failure-toast";

// The reset's error toasts, dismissed once the reset (or a resend) succeeds, so that a wrong
// code's "Password reset failed" does not stay on the login page the right one leads to.
const RESET_FAILED = failureToast("password-reset-failed");
const RESEND_FAILED = failureToast("password-reset-resend-failed");

/** Where the reset code went and when another may be asked for (ms since epoch). */
export interface ResetRequest {
  email: string;
  resendAt: number;
}

function resendTime(at: Parameters<typeof timestampMs>[0] | undefined): number {
  return at ? timestampMs(at) : Date.now() + RESEND_COUNTDOWN_SECONDS * 1000;
}

/** Step 1: the e-mail address. The answer is the same whether or not an account exists. */
export function RequestCodeForm({ onSent }: { onSent: (request: ResetRequest) => void }) {
  const requestReset = useRequestPasswordReset();
  const [serverError, setServerError] = useState<string>();
  useFocusOnOpen("reset-email");
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<ResetEmailValues>({ resolver: zodResolver(resetEmailSchema), defaultValues: { email: "" } });

  const onSubmit = async ({ email }: ResetEmailValues) => {
    setServerError(undefined);
    try {
      const response = await requestReset.mutateAsync({ email });
      onSent({ email, resendAt: resendTime(response.resendAvailableAt) });
    } catch (error) {
      setServerError(errorMessage(error, RESET_REQUEST_FALLBACK));
    }
  };

  return (
    <form noValidate onSubmit={handleSubmit(onSubmit)} className="space-y-5" aria-describedby="reset-request-error">
      <FormAlert id="reset-request-error" message={errors.email?.message ?? serverError} />
      <div>
        <Label htmlFor="reset-email">Email</Label>
        <Input
          id="reset-email"
          type="email"
          autoComplete="email"
          placeholder="you@example.co.za"
          aria-invalid={errors.email ? true : undefined}
          {...register("email")}
        />
      </div>
      <Button type="submit" size="lg" className="w-full" busy={requestReset.isPending}>
        {requestReset.isPending ? "Sending code..." : "Send Code"}
      </Button>
    </form>
  );
}

/** Step 2: the e-mailed code (digits only, resend after the countdown) and the new password. */
export function ResetPasswordForm({ request, onChangeEmail }: { request: ResetRequest; onChangeEmail: () => void }) {
  const navigate = useNavigate();
  const resetPassword = useResetPassword();
  const resend = useResendResetCode();
  const [resendAt, setResendAt] = useState(request.resendAt);
  const [serverError, setServerError] = useState<string>();
  const secondsLeft = useCountdown(resendAt);
  useFocusOnOpen("reset-code");
  const {
    control,
    register,
    handleSubmit,
    setValue,
    formState: { errors },
  } = useForm<ResetPasswordValues>({
    resolver: zodResolver(resetPasswordSchema),
    defaultValues: { code: "", newPassword: "", confirmPassword: "" },
  });

  const onSubmit = async (values: ResetPasswordValues) => {
    setServerError(undefined);
    try {
      await resetPassword.mutateAsync({ email: request.email, ...values });
      RESET_FAILED.dismiss();
      RESEND_FAILED.dismiss();
      toast.success("Password reset", { description: "Your password has been reset. Please log in with your new password." });
      navigate("/login", { replace: true });
    } catch (error) {
      const message = errorMessage(error, RESET_FAILURE_FALLBACK);
      RESET_FAILED.show("Password reset failed", { description: message });
      setServerError(message);
    }
  };

  const onResend = async () => {
    try {
      const response = await resend.mutateAsync({ email: request.email, purpose: CodePurpose.PASSWORD_RESET });
      setResendAt(resendTime(response.resendAvailableAt));
      setValue("code", "");
      RESEND_FAILED.dismiss();
      RESET_FAILED.dismiss();
      toast.success("OTP Resent", { description: `We sent a new code to ${request.email}.` });
    } catch (error) {
      RESEND_FAILED.show("Could not resend the code", { description: errorMessage(error, RESEND_FAILURE_FALLBACK) });
    }
  };

  const invalid = (name: keyof ResetPasswordValues) => (errors[name] ? true : undefined);
  const describedBy = (name: keyof ResetPasswordValues, hint?: string) =>
    [errors[name] ? `reset-${name}-error` : undefined, hint].filter(Boolean).join(" ") || undefined;

  return (
    <form noValidate onSubmit={handleSubmit(onSubmit)} className="space-y-5" aria-describedby="reset-error">
      <FormAlert id="reset-error" message={serverError} />
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Code sent to <strong className="font-medium text-slate-900 dark:text-white">{request.email}</strong>.{" "}
        <button type="button" onClick={onChangeEmail} className="font-medium text-brand-700 underline-offset-4 hover:underline dark:text-brand-300">
          Use a different email
        </button>
      </p>
      <div>
        <Label htmlFor="reset-code">Reset code</Label>
        <Controller
          control={control}
          name="code"
          render={({ field }) => (
            <Input
              id="reset-code"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]*"
              placeholder="000000"
              maxLength={RESET_CODE_LENGTH}
              className="h-14 text-center font-mono text-2xl tracking-[0.5em] sm:text-2xl"
              aria-invalid={invalid("code")}
              aria-describedby={describedBy("code")}
              name={field.name}
              ref={field.ref}
              value={field.value}
              onBlur={field.onBlur}
              onChange={(event) => field.onChange(sanitizeOtp(event.target.value))}
            />
          )}
        />
        <FieldError id="reset-code-error" message={errors.code?.message} />
      </div>
      <div>
        <Label htmlFor="reset-newPassword">New password</Label>
        <PasswordInput
          id="reset-newPassword"
          autoComplete="new-password"
          aria-invalid={invalid("newPassword")}
          aria-describedby={describedBy("newPassword", "reset-newPassword-hint")}
          {...register("newPassword")}
        />
        <p id="reset-newPassword-hint" className="mt-1.5 text-xs text-slate-500 dark:text-slate-400">
          At least {MIN_PASSWORD_LENGTH} characters.
        </p>
        <FieldError id="reset-newPassword-error" message={errors.newPassword?.message} />
      </div>
      <div>
        <Label htmlFor="reset-confirmPassword">Confirm new password</Label>
        <PasswordInput
          id="reset-confirmPassword"
          autoComplete="new-password"
          aria-invalid={invalid("confirmPassword")}
          aria-describedby={describedBy("confirmPassword")}
          {...register("confirmPassword")}
        />
        <FieldError id="reset-confirmPassword-error" message={errors.confirmPassword?.message} />
      </div>
      <Button type="submit" size="lg" className="w-full" busy={resetPassword.isPending}>
        {resetPassword.isPending ? "Resetting..." : "Reset Password"}
      </Button>
      <ResendCode secondsLeft={secondsLeft} busy={resend.isPending} onResend={() => void onResend()} />
    </form>
  );
}
