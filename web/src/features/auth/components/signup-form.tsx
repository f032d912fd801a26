import { timestampMs } from "@bufbuild/protobuf/wkt";
import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useNavigate } from "react-router";
import { Gift } from "lucide-react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { FormAlert } from "@/components/ui/form-alert";
import { Input, Label } from "@/components/ui/input";
import { PasswordInput } from "@/components/ui/password-input";
import { NEW_USER_CREDIT } from "@/lib/credit";
import { errorMessage, fieldViolations } from "@/lib/errors";
import { markViolations } from "@/lib/form-violations";
import { savePendingVerification } from "../api/pending-verification";
import type { PendingVerification } from "../api/pending-verification";
import {
  MAX_NAME_LENGTH,
  MIN_PASSWORD_LENGTH,
  SIGNUP_FAILURE_FALLBACK,
  SIGNUP_FIELDS,
  referralCodeFrom,
  signUpSchema,
  useSignUp,
} from "../api/sign-up";
import type { SignUpValues } from "../api/sign-up";
import { SIGN_UP_FAILED } from "../lib/failure-toasts";
import { useFocusOnOpen } from "./use-focus-on-open";

const EMPTY: SignUpValues = { firstName: "", lastName: "", email: "", password: "", confirmPassword: "" };

/** The form's field for a field violation of SignUp (identity names them in snake case). */
const VIOLATION_FIELDS: Record<string, keyof SignUpValues> = {
  first_name: "firstName",
  firstName: "firstName",
  last_name: "lastName",
  lastName: "lastName",
  email: "email",
  password: "password",
};

/**
 * The sign-up form. referral is the `ref` of a friend's link (/signup?ref=CODE): a valid code
 * goes with SignUp, and the visitor is told of the credit it brings once they verify.
 */
export function SignUpForm({ referral }: { referral?: string | null }) {
  const [referralCode] = useState(() => referralCodeFrom(referral ?? null));
  const navigate = useNavigate();
  const signUp = useSignUp();
  const [serverError, setServerError] = useState<string>();
  useFocusOnOpen("signup-first-name");
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<SignUpValues>({ resolver: zodResolver(signUpSchema), defaultValues: EMPTY });

  const onSubmit = async (values: SignUpValues) => {
    setServerError(undefined);
    try {
      const response = await signUp.mutateAsync({
        ...values,
        referralCode: referralCode && referralCode !== "invalid" ? referralCode : "",
      });
      const pending: PendingVerification = {
        email: response.email || values.email,
        resendAvailableAt: response.resendAvailableAt ? timestampMs(response.resendAvailableAt) : undefined,
      };
      savePendingVerification(pending);
      // The same words whether or not the address already has an account (the server answers
      // alike and e-mails an existing owner instead): the form must not tell who banks with us.
      SIGN_UP_FAILED.dismiss();
      toast.success("Check your email", {
        description: `We've sent a 6-digit code to ${pending.email}. Enter it to finish creating your account.`,
      });
      navigate("/otp-verification", { state: pending });
    } catch (error) {
      console.error("Sign-up failed", error);
      // A code identity refused is said as identity says it (its field violation).
      const onCode = fieldViolations(error).find((v) => v.field === "referral_code" || v.field === "referralCode");
      const message = onCode?.description || errorMessage(error, SIGNUP_FAILURE_FALLBACK);
      SIGN_UP_FAILED.show("Registration failed", { description: message });
      setServerError(message);
      // The field the server refused (a common password, an e-mail it cannot use) is marked and
      // takes the focus, as the form's own checks do, so the fix starts where the problem is.
      markViolations(fieldViolations(error), VIOLATION_FIELDS, setError);
    }
  };

  const message = SIGNUP_FIELDS.map((field) => errors[field]?.message).find(Boolean) ?? serverError;
  const invalid = (field: keyof SignUpValues) => (errors[field] ? true : undefined);
  const busy = signUp.isPending;

  return (
    <form noValidate onSubmit={handleSubmit(onSubmit)} className="space-y-5" aria-describedby="signup-error">
      {referralCode && referralCode !== "invalid" && (
        <div
          role="note"
          aria-label="Invitation"
          className="flex items-start gap-3 rounded-lg border border-emerald-200 bg-emerald-50 p-3 text-sm text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950/60 dark:text-emerald-100"
        >
          <Gift aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-emerald-700 dark:text-emerald-300" />
          <p>
            A friend invited you to Thumela (code <span className="font-mono font-semibold">{referralCode}</span>). You get{" "}
            {NEW_USER_CREDIT} transfer credit once you verify your email address. It pays the fees of your transfers.
          </p>
        </div>
      )}
      {referralCode === "invalid" && (
        <p role="note" className="rounded-lg bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950/50 dark:text-amber-100">
          The invitation link's referral code isn't valid. You can still create your account, without the referral credit.
        </p>
      )}
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
