import { zodResolver } from "@hookform/resolvers/zod";
import { Code } from "@connectrpc/connect";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Link, useNavigate, useSearchParams } from "react-router";
import { Button } from "@/components/ui/button";
import { FormAlert } from "@/components/ui/form-alert";
import { Input, Label } from "@/components/ui/input";
import { PasswordInput } from "@/components/ui/password-input";
import { identify } from "@/lib/analytics";
import { errorMessage, hasCode } from "@/lib/errors";
import { useStoreSession } from "../api/session";
import { savePendingVerification } from "../api/pending-verification";
import {
  LOGIN_INLINE_FALLBACK,
  LOGIN_TOAST_FALLBACK,
  signInSchema,
  useSignIn,
} from "../api/sign-in";
import type { SignInValues } from "../api/sign-in";
import { SIGN_IN_FAILED } from "../lib/failure-toasts";
import { safeRedirect } from "../lib/safe-redirect";
import { textLinkClasses } from "./auth-card";
import { PasskeySignIn } from "./passkey-sign-in";
import { useFocusOnOpen } from "./use-focus-on-open";

export function LoginForm() {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const signIn = useSignIn();
  const storeSession = useStoreSession();
  const [serverError, setServerError] = useState<string>();
  useFocusOnOpen("login-email");
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<SignInValues>({ resolver: zodResolver(signInSchema), defaultValues: { email: "", password: "" } });

  const onSubmit = async (values: SignInValues) => {
    setServerError(undefined);
    try {
      const session = await signIn.mutateAsync(values);
      await storeSession(session);
      identify(session.user);
      SIGN_IN_FAILED.dismiss();
      navigate(safeRedirect(searchParams.get("redirect")), { replace: true });
    } catch (error) {
      SIGN_IN_FAILED.show("Login failed", { description: errorMessage(error, LOGIN_TOAST_FALLBACK) });
      if (hasCode(error, Code.FailedPrecondition)) {
        // The account exists but its e-mail is not verified yet: finish that first.
        savePendingVerification({ email: values.email });
        navigate("/otp-verification", { state: { email: values.email } });
        return;
      }
      setServerError(errorMessage(error, LOGIN_INLINE_FALLBACK));
    }
  };

  const message = errors.email?.message ?? errors.password?.message ?? serverError;
  const busy = signIn.isPending;

  return (
    <form noValidate onSubmit={handleSubmit(onSubmit)} className="space-y-5" aria-describedby="login-error">
      <FormAlert id="login-error" message={message} />
      <div>
        <Label htmlFor="login-email">Email</Label>
        <Input
          id="login-email"
          type="email"
          autoComplete="username webauthn"
          placeholder="you@example.co.za"
          aria-invalid={errors.email ? true : undefined}
          {...register("email")}
        />
      </div>
      {/* The link sits beside the label but comes after the field in the DOM, so Tab goes
          Email → Password (and its show/hide toggle) → Forgot password? → Log In. */}
      <div className="grid grid-cols-[1fr_auto] items-center gap-y-1.5">
        <Label htmlFor="login-password" className="col-start-1 row-start-1 mb-0">
          Password
        </Label>
        <div className="col-span-2 row-start-2">
          <PasswordInput
            id="login-password"
            autoComplete="current-password"
            aria-invalid={errors.password ? true : undefined}
            {...register("password")}
          />
        </div>
        <Link to="/forgot-password" className={`col-start-2 row-start-1 text-sm ${textLinkClasses}`}>
          Forgot password?
        </Link>
      </div>
      <Button type="submit" size="lg" className="w-full" busy={busy}>
        {busy ? "Logging in..." : "Log In"}
      </Button>
      <PasskeySignIn />
    </form>
  );
}
