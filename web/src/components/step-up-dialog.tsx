import { Code, createClient } from "@connectrpc/connect";
import { useTransport } from "@connectrpc/connect-query";
import { Fingerprint, KeyRound } from "lucide-react";
import { useEffect, useMemo, useRef, useState } from "react";
import type { FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent } from "@/components/ui/dialog";
import { FieldError } from "@/components/ui/field-error";
import { FormAlert } from "@/components/ui/form-alert";
import { Label } from "@/components/ui/input";
import { PasswordInput } from "@/components/ui/password-input";
import { Spinner } from "@/components/ui/spinner";
import { SecurityService } from "@/gen/thumela/bff/v1/bff_pb";
import { errorMessage, hasCode } from "@/lib/errors";
import { StepUpPurpose, beginStepUp, stepUpWithPasskey, stepUpWithPassword } from "@/lib/step-up";
import type { StepUpMethod } from "@/lib/step-up";

export const STEP_UP_TEXTS = {
  title: "Confirm it's you",
  description: "To keep your money safe, confirm it's you before we send this transfer.",
  passwordLabel: "Password",
  passwordHint: "Enter the password you sign in to Thumela with.",
  passwordMissing: "Please enter your password.",
  usePassword: "Use your password instead",
  passkeyPrompt: "Use your passkey (fingerprint, face or screen lock) to confirm this transfer.",
  usePasskey: "Use passkey",
  passkeyFailed: "We couldn't confirm it's you with your passkey. Please try again.",
  confirm: "Confirm and send",
  cancel: "Cancel",
  loading: "Getting ready…",
  unavailable: "We couldn't start the check. Please try again.",
} as const;

interface StepUpDialogProps {
  open: boolean;
  /** The line under the title; default: the transfer's ("before we send this transfer"). */
  description?: string;
  /** The password form's button; default 'Confirm and send'. */
  confirmLabel?: string;
  /** The passkey's line; default: the transfer's ("to confirm this transfer"). */
  passkeyPrompt?: string;
  /** What the proof is for (identity binds it to that); default: sending money. */
  purpose?: StepUpPurpose;
  /** Escape, Close or Cancel: nothing is sent. */
  onCancel: () => void;
  /** The sender proved it is them: send the transfer. */
  onConfirmed: () => void;
}

/**
 * "Confirm it's you", just before money moves (a transfer, or a recurring send being set up): with the sender's passkey when they
 * have one (SecurityService.BeginStepUp says which), otherwise their password. Radix's dialog
 * traps focus, Escape cancels, and focus goes back to 'Send Money'.
 */
export function StepUpDialog({ open, onCancel, onConfirmed, description, confirmLabel, passkeyPrompt, purpose }: StepUpDialogProps) {
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onCancel()}>
      {open && (
        <DialogContent
          title={STEP_UP_TEXTS.title}
          description={description ?? STEP_UP_TEXTS.description}
          className="max-sm:top-auto max-sm:bottom-4 max-sm:translate-y-0"
        >
          <StepUpBody
            onCancel={onCancel}
            onConfirmed={onConfirmed}
            confirmLabel={confirmLabel}
            passkeyPrompt={passkeyPrompt}
            purpose={purpose}
          />
        </DialogContent>
      )}
    </Dialog>
  );
}

function StepUpBody({
  onCancel,
  onConfirmed,
  confirmLabel,
  passkeyPrompt,
  purpose = StepUpPurpose.SEND_MONEY,
}: Omit<StepUpDialogProps, "open" | "description">) {
  const transport = useTransport();
  const security = useMemo(() => createClient(SecurityService, transport), [transport]);
  const [method, setMethod] = useState<StepUpMethod>();
  const [startError, setStartError] = useState<string>();
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    beginStepUp(security).then(
      (m) => live && setMethod(m),
      (error: unknown) => live && setStartError(errorMessage(error, STEP_UP_TEXTS.unavailable)),
    );
    return () => {
      live = false;
    };
  }, [security, attempt]);

  if (startError) {
    return (
      <div>
        <FormAlert message={startError} />
        <div className="mt-5 flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={onCancel}>
            {STEP_UP_TEXTS.cancel}
          </Button>
          <Button
            onClick={() => {
              setStartError(undefined);
              setAttempt((a) => a + 1);
            }}
          >
            Try again
          </Button>
        </div>
      </div>
    );
  }
  if (!method) {
    return (
      <p role="status" className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
        <Spinner /> {STEP_UP_TEXTS.loading}
      </p>
    );
  }
  return method.kind === "passkey" ? (
    <PasskeyProof
      onCancel={onCancel}
      onConfirmed={onConfirmed}
      passkeyPrompt={passkeyPrompt}
      // Any user may prove it with the password, e.g. on a device without their passkey.
      onUsePassword={() => setMethod({ kind: "password" })}
      prove={async (again) => {
        // A passkey's challenge is single-use: a second try asks for new options.
        const m = again ? await beginStepUp(security) : method;
        if (m.kind !== "passkey") throw new Error("no passkey any more");
        await stepUpWithPasskey(security, m.optionsJson, purpose);
      }}
    />
  ) : (
    <PasswordProof
      onCancel={onCancel}
      onConfirmed={onConfirmed}
      confirmLabel={confirmLabel}
      prove={(password) => stepUpWithPassword(security, password, purpose)}
    />
  );
}

function PasswordProof({
  onCancel,
  onConfirmed,
  prove,
  confirmLabel = STEP_UP_TEXTS.confirm,
}: Omit<StepUpDialogProps, "open" | "description" | "passkeyPrompt" | "purpose"> & { prove: (password: string) => Promise<void> }) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    // The dialog's form sits in a portal: keep its submit from reaching the wizard's form.
    event.stopPropagation();
    if (!password) {
      setError(STEP_UP_TEXTS.passwordMissing);
      input.current?.focus();
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await prove(password);
      setPassword("");
      onConfirmed();
    } catch (err) {
      // Identity's words ("Incorrect password. Please try again.", or the rate limit's wait).
      setError(errorMessage(err, STEP_UP_TEXTS.unavailable));
      setPassword("");
      input.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <form noValidate onSubmit={submit} aria-label={STEP_UP_TEXTS.title}>
      <div className="flex items-start gap-3 text-sm text-slate-600 dark:text-slate-400">
        <KeyRound aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-brand-700 dark:text-brand-400" />
        <p id="step-up-password-hint">{STEP_UP_TEXTS.passwordHint}</p>
      </div>
      <div className="mt-4">
        <Label htmlFor="step-up-password">{STEP_UP_TEXTS.passwordLabel}</Label>
        <PasswordInput
          ref={input}
          id="step-up-password"
          name="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "step-up-password-hint step-up-password-error" : "step-up-password-hint"}
        />
        <FieldError id="step-up-password-error" message={error} />
      </div>
      <div className="mt-6 flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onCancel} disabled={busy}>
          {STEP_UP_TEXTS.cancel}
        </Button>
        <Button type="submit" busy={busy}>
          {confirmLabel}
        </Button>
      </div>
    </form>
  );
}

function PasskeyProof({
  onCancel,
  onConfirmed,
  prove,
  onUsePassword,
  passkeyPrompt = STEP_UP_TEXTS.passkeyPrompt,
}: Omit<StepUpDialogProps, "open" | "description" | "confirmLabel" | "purpose"> & {
  prove: (again: boolean) => Promise<void>;
  onUsePassword: () => void;
}) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const used = useRef(false);

  const use = async () => {
    const again = used.current;
    used.current = true;
    setBusy(true);
    setError(undefined);
    try {
      await prove(again);
      onConfirmed();
    } catch (err) {
      setError(hasCode(err, Code.ResourceExhausted) ? errorMessage(err, STEP_UP_TEXTS.passkeyFailed) : STEP_UP_TEXTS.passkeyFailed);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div>
      <div className="flex items-start gap-3 text-sm text-slate-600 dark:text-slate-400">
        <Fingerprint aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-brand-700 dark:text-brand-400" />
        <p>{passkeyPrompt}</p>
      </div>
      <FormAlert message={error} className="mt-4" />
      <button
        type="button"
        onClick={onUsePassword}
        disabled={busy}
        className="mt-4 text-sm font-medium text-brand-700 underline-offset-4 hover:underline disabled:opacity-50 dark:text-brand-400"
      >
        {STEP_UP_TEXTS.usePassword}
      </button>
      <div className="mt-6 flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onCancel} disabled={busy}>
          {STEP_UP_TEXTS.cancel}
        </Button>
        {/* eslint-disable-next-line jsx-a11y/no-autofocus -- the dialog opened on the user's action and this is its main action: focus goes into the dialog anyway, and here to the passkey button. */}
        <Button onClick={() => void use()} busy={busy} autoFocus>
          {STEP_UP_TEXTS.usePasskey}
        </Button>
      </div>
    </div>
  );
}
