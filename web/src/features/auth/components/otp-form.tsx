import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import type { FormEvent } from "react";
import { useRef, useState } from "react";
import { Link, useLocation, useNavigate } from "react-router";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Input, Label } from "@/components/ui/input";
import { CodePurpose } from "@/gen/thumela/bff/v1/bff_pb";
import { identify } from "@/lib/analytics";
import { errorMessage, hasCode } from "@/lib/errors";
import {
  clearPendingVerification,
  loadPendingVerification,
  savePendingVerification,
} from "../api/pending-verification";
import type { PendingVerification } from "../api/pending-verification";
import { useStoreSession } from "../api/session";
import {
  OTP_LENGTH,
  RESEND_COUNTDOWN_SECONDS,
  RESEND_FAILURE_FALLBACK,
  VERIFY_FAILURE_FALLBACK,
  sanitizeOtp,
  useResendCode,
  useVerifyEmail,
} from "../api/verify-email";
import { RESEND_FAILED, SIGN_IN_FAILED, VERIFY_FAILED } from "../lib/failure-toasts";
import { textLinkClasses } from "./auth-card";
import { useCountdown } from "./use-countdown";
import { useFocusOnOpen } from "./use-focus-on-open";
import { ResendCode } from "./resend-code";

function pendingFromState(state: unknown): PendingVerification | undefined {
  const email = (state as { email?: unknown } | null)?.email;
  if (typeof email !== "string" || !email) return undefined;
  const at = (state as { resendAvailableAt?: unknown }).resendAvailableAt;
  return { email, resendAvailableAt: typeof at === "number" ? at : undefined };
}

/**
 * Where the code went: router state first, then what this tab saved before a reload. The
 * router state is the sign-up's (a reload keeps it in the history entry), so a later resend's
 * time, saved in this tab for the same e-mail, wins: a reload keeps the running countdown.
 */
export function usePendingVerification(): PendingVerification | undefined {
  const location = useLocation();
  const [pending] = useState(() => latestPending(pendingFromState(location.state), loadPendingVerification()));
  return pending;
}

function latestPending(
  fromState: PendingVerification | undefined,
  saved: PendingVerification | undefined,
): PendingVerification | undefined {
  if (!fromState) return saved;
  if (saved?.email !== fromState.email || saved.resendAvailableAt === undefined) return fromState;
  return {
    email: fromState.email,
    resendAvailableAt: Math.max(fromState.resendAvailableAt ?? 0, saved.resendAvailableAt),
  };
}

export function OtpForm({ pending }: { pending: PendingVerification }) {
  const navigate = useNavigate();
  const verify = useVerifyEmail();
  const resend = useResendCode();
  const storeSession = useStoreSession();
  const [code, setCode] = useState("");
  // The server refused the code (wrong or expired): the field says so until it is changed.
  const [refused, setRefused] = useState(false);
  const codeInput = useRef<HTMLInputElement>(null);
  const [resendAt, setResendAt] = useState(
    () => pending.resendAvailableAt ?? Date.now() + RESEND_COUNTDOWN_SECONDS * 1000,
  );
  const secondsLeft = useCountdown(resendAt);
  const complete = code.length === OTP_LENGTH;
  useFocusOnOpen("otp-code");

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!complete || verify.isPending) return;
    try {
      const session = await verify.mutateAsync({ email: pending.email, code });
      clearPendingVerification();
      await storeSession(session);
      identify(session.user);
      // Verified: what went wrong on the way here (a mistyped code, a failed resend, the
      // unverified sign-in that led here) is over, and must not follow the sender in.
      for (const failure of [VERIFY_FAILED, RESEND_FAILED, SIGN_IN_FAILED]) failure.dismiss();
      navigate("/dashboard", { replace: true });
    } catch (error) {
      VERIFY_FAILED.show("Verification failed", { description: errorMessage(error, VERIFY_FAILURE_FALLBACK) });
      // A refused code is fixed in the field: it is marked, and takes the focus back from Verify
      // with its digits selected, so typing the right code replaces them. (A network failure
      // leaves the focus on Verify, to press again.)
      if (hasCode(error, Code.InvalidArgument)) {
        setRefused(true);
        codeInput.current?.focus();
        codeInput.current?.select();
      }
    }
  };

  const onResend = async () => {
    try {
      const response = await resend.mutateAsync({
        email: pending.email,
        purpose: CodePurpose.EMAIL_VERIFICATION,
      });
      const next = response.resendAvailableAt
        ? timestampMs(response.resendAvailableAt)
        : Date.now() + RESEND_COUNTDOWN_SECONDS * 1000;
      setResendAt(next);
      savePendingVerification({ email: pending.email, resendAvailableAt: next });
      setCode("");
      setRefused(false);
      // A new code: the old one's failure is no longer the news.
      RESEND_FAILED.dismiss();
      VERIFY_FAILED.dismiss();
      toast.success("OTP Resent", { description: `We sent a new code to ${pending.email}.` });
    } catch (error) {
      RESEND_FAILED.show("Could not resend the code", { description: errorMessage(error, RESEND_FAILURE_FALLBACK) });
    }
  };

  return (
    <form noValidate onSubmit={onSubmit} className="space-y-5">
      <div>
        <Label htmlFor="otp-code">Verification code</Label>
        <Input
          id="otp-code"
          ref={codeInput}
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]*"
          placeholder="000000"
          aria-describedby="otp-code-hint"
          className="h-14 text-center font-mono text-2xl tracking-[0.5em] sm:text-2xl"
          aria-invalid={refused || undefined}
          value={code}
          onChange={(event) => {
            setCode(sanitizeOtp(event.target.value));
            setRefused(false);
          }}
        />
        <p id="otp-code-hint" className="mt-1.5 text-xs text-slate-500 dark:text-slate-400">
          Enter the {OTP_LENGTH}-digit code from the e-mail. If you already have an account with this
          address, we've e-mailed you how to log in instead.
        </p>
      </div>
      <Button type="submit" size="lg" className="w-full" disabled={!complete} busy={verify.isPending}>
        {verify.isPending ? "Verifying..." : "Verify"}
      </Button>
      <ResendCode secondsLeft={secondsLeft} busy={resend.isPending} onResend={() => void onResend()} />
    </form>
  );
}

export function MissingEmailNotice() {
  return (
    <div className="space-y-3 text-sm text-slate-700 dark:text-slate-300">
      <p>We don't know which e-mail address to verify. Please sign up again, or log in if you already have an account.</p>
      <p className="flex gap-4">
        <Link to="/signup" className={textLinkClasses}>
          Go to sign-up
        </Link>
        <Link to="/login" className={textLinkClasses}>
          Log in
        </Link>
      </p>
    </div>
  );
}
