import { Button } from "@/components/ui/button";
import { formatCountdown } from "./use-countdown";

/**
 * The line under a code form: the countdown until another code may be requested (announced to
 * screen readers when it ends), then 'Didn't get the code?' and 'Resend code'. Shared by the
 * sign-up code screen and the password reset.
 */
export function ResendCode({ secondsLeft, busy, onResend }: { secondsLeft: number; busy: boolean; onResend: () => void }) {
  return (
    <div className="flex flex-col items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
      <p>
        {secondsLeft > 0 ? (
          <>
            You can request a new code in <span className="font-mono font-medium tabular-nums">{formatCountdown(secondsLeft)}</span>
          </>
        ) : (
          "Didn't get the code?"
        )}
      </p>
      <p className="sr-only" aria-live="polite">
        {secondsLeft === 0 ? "You can now request a new code." : ""}
      </p>
      <Button variant="ghost" size="sm" disabled={secondsLeft > 0} busy={busy} onClick={onResend}>
        Resend code
      </Button>
    </div>
  );
}
