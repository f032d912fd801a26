import { Code } from "@connectrpc/connect";
import { KeyRound } from "lucide-react";
import { AlertDialog } from "radix-ui";
import { useRef, useState } from "react";
import { toast } from "sonner";
import { StepUpDialog } from "@/components/step-up-dialog";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { useReturnFocus } from "@/components/ui/dialog";
import { Skeleton } from "@/components/ui/skeleton";
import type { Passkey } from "@/gen/thumela/bff/v1/bff_pb";
import { errorMessage, hasCode } from "@/lib/errors";
import { toDate } from "@/lib/date";
import {
  PasskeyAlreadyRegisteredError,
  PasskeyCancelledError,
  passkeysSupported,
} from "@/lib/passkeys";
import { StepUpPurpose, isPasskeyStepUpRequired } from "@/lib/step-up";
import { useAddPasskey, useDeletePasskey, usePasskeys } from "../api/passkeys";

const ADD_BUTTON_ID = "add-passkey";
const ADD_FALLBACK = "We couldn't add your passkey. Please try again.";
const REMOVE_FALLBACK = "We couldn't remove your passkey. Please try again.";

export const ADD_STEP_UP_TEXTS = {
  description: "To keep your account safe, confirm it's you before adding a passkey.",
  passkeyPrompt: "Use a passkey you already have (fingerprint, face or screen lock) to confirm it's you.",
  confirm: "Confirm",
} as const;

/**
 * How long after "Confirm it's you" this page adds a passkey without asking again (a closed
 * browser prompt may be retried): identity's window is 5 minutes and the proof answers one
 * passkey; it refuses with STEP_UP_REQUIRED otherwise and the dialog opens again.
 */
const CONFIRMED_FOR_MS = 4 * 60_000;

/** Whether a confirmation that counts until `until` (ms) still does. */
function stillConfirmed(until: number): boolean {
  return Date.now() < until;
}

function confirmedUntilFromNow(): number {
  return Date.now() + CONFIRMED_FOR_MS;
}

const dayFormat = new Intl.DateTimeFormat("en-ZA", { day: "numeric", month: "short", year: "numeric" });

function formatDay(value: Date | undefined): string {
  return value ? dayFormat.format(value) : "";
}

/**
 * Account -> Security: the user's passkeys (name, when added, when last used), 'Add a passkey'
 * ("Confirm it's you" with the password or a passkey the user has, then the browser's passkey
 * prompt) and 'Remove' with a confirmation. Identity refuses a registration without that
 * step-up; this page only asks at the right moment.
 */
export function PasskeysSection() {
  const passkeys = usePasskeys();
  const add = useAddPasskey();
  const [removing, setRemoving] = useState<{ passkey: Passkey; returnFocus: HTMLElement | null }>();
  const [confirming, setConfirming] = useState(false);
  // Until when (ms) the last "Confirm it's you" of this page counts; 0: ask.
  const confirmedUntil = useRef(0);
  const supported = passkeysSupported();

  const onAdd = () => {
    if (stillConfirmed(confirmedUntil.current)) void addPasskey();
    else setConfirming(true);
  };

  const addPasskey = async () => {
    try {
      const passkey = await add.mutateAsync("");
      confirmedUntil.current = 0; // spent: the next passkey needs another
      toast.success("Passkey added", {
        description: `${passkey?.name ?? "Your passkey"} can now be used to log in and to confirm payments.`,
      });
    } catch (error) {
      if (isPasskeyStepUpRequired(error)) {
        // Expired, or spent in another tab: ask again.
        confirmedUntil.current = 0;
        setConfirming(true);
        return;
      }
      if (error instanceof PasskeyCancelledError) {
        toast.info("Passkey not added", { description: "The passkey prompt was closed before it finished." });
        return;
      }
      if (error instanceof PasskeyAlreadyRegisteredError) {
        toast.error("Passkey not added", { description: error.message });
        return;
      }
      toast.error("Passkey not added", { description: errorMessage(error, ADD_FALLBACK) });
    }
  };

  return (
    <Card className="p-6" aria-labelledby="passkeys-heading">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 id="passkeys-heading" className="text-lg font-semibold">
            Passkeys
          </h2>
          <p className="mt-1 max-w-prose text-sm text-slate-600 dark:text-slate-400">
            Log in with your fingerprint, face or screen lock instead of your password. Passkeys also confirm it's
            you before you send money.
          </p>
        </div>
        <Button
          id={ADD_BUTTON_ID}
          variant="outline"
          busy={add.isPending}
          disabled={!supported}
          onClick={onAdd}
        >
          {add.isPending ? "Adding..." : "Add a passkey"}
        </Button>
      </div>
      {!supported && (
        <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">
          This browser doesn't support passkeys. Try a recent version of Chrome, Safari, Edge or Firefox.
        </p>
      )}
      <div className="mt-5">
        {passkeys.isPending ? (
          <div role="status" aria-label="Loading your passkeys..." className="space-y-3">
            {[0, 1].map((row) => (
              <Skeleton key={row} className="h-14 w-full" />
            ))}
          </div>
        ) : passkeys.isError ? (
          <div role="alert" className="space-y-3 rounded-lg bg-slate-50 p-4 dark:bg-slate-800/60">
            <p className="font-medium">We couldn't load your passkeys.</p>
            <Button variant="outline" size="sm" busy={passkeys.isFetching} onClick={() => void passkeys.refetch()}>
              Try again
            </Button>
          </div>
        ) : passkeys.data.passkeys.length === 0 ? (
          <p className="rounded-lg bg-slate-50 p-4 text-sm text-slate-600 dark:bg-slate-800/60 dark:text-slate-400">
            You have no passkeys yet.
          </p>
        ) : (
          <ul aria-label="Your passkeys" className="divide-y divide-slate-200 dark:divide-slate-800">
            {passkeys.data.passkeys.map((passkey) => (
              <PasskeyRow
                key={passkey.id}
                passkey={passkey}
                onRemove={(returnFocus) => setRemoving({ passkey, returnFocus })}
              />
            ))}
          </ul>
        )}
      </div>
      <StepUpDialog
        open={confirming}
        purpose={StepUpPurpose.ADD_PASSKEY}
        description={ADD_STEP_UP_TEXTS.description}
        passkeyPrompt={ADD_STEP_UP_TEXTS.passkeyPrompt}
        confirmLabel={ADD_STEP_UP_TEXTS.confirm}
        onCancel={() => setConfirming(false)}
        onConfirmed={() => {
          confirmedUntil.current = confirmedUntilFromNow();
          setConfirming(false);
          void addPasskey();
        }}
      />
      <RemovePasskeyDialog
        passkey={removing?.passkey}
        returnFocus={removing?.returnFocus}
        onClose={() => setRemoving(undefined)}
      />
    </Card>
  );
}

function PasskeyRow({ passkey, onRemove }: { passkey: Passkey; onRemove: (button: HTMLElement | null) => void }) {
  const button = useRef<HTMLButtonElement>(null);
  const lastUsed = toDate(passkey.lastUsedAt);
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 py-3">
      <div className="flex min-w-0 items-center gap-3">
        <KeyRound aria-hidden="true" className="size-5 shrink-0 text-slate-500" />
        <div className="min-w-0">
          <p className="truncate font-medium">{passkey.name}</p>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Added {formatDay(toDate(passkey.createdAt))}
            <span aria-hidden="true"> · </span>
            <span className="sr-only">, </span>
            {lastUsed ? `Last used ${formatDay(lastUsed)}` : "Not used yet"}
          </p>
        </div>
      </div>
      <Button
        ref={button}
        variant="ghost"
        size="sm"
        aria-label={`Remove ${passkey.name}`}
        onClick={() => onRemove(button.current)}
      >
        Remove
      </Button>
    </li>
  );
}

/** Confirms a removal; a passkey already gone counts as removed. */
function RemovePasskeyDialog({
  passkey,
  returnFocus,
  onClose,
}: {
  passkey?: Passkey;
  returnFocus?: HTMLElement | null;
  onClose: () => void;
}) {
  const remove = useDeletePasskey();
  // Back to the passkey's Remove button; once it is removed, to Add a passkey.
  const focusReturn = useReturnFocus(returnFocus, () => document.getElementById(ADD_BUTTON_ID));

  const onRemove = async () => {
    if (!passkey) return;
    try {
      await remove.mutateAsync({ passkeyId: passkey.id });
      toast.success("Passkey removed", { description: `${passkey.name} can no longer be used to log in.` });
    } catch (error) {
      if (!hasCode(error, Code.NotFound)) {
        toast.error("Remove failed", { description: errorMessage(error, REMOVE_FALLBACK) });
      }
    }
    onClose();
  };

  return (
    <AlertDialog.Root open={Boolean(passkey)} onOpenChange={(open) => !open && !remove.isPending && onClose()}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-slate-950/50" />
        <AlertDialog.Content
          {...focusReturn}
          className="fixed left-1/2 top-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-xl border border-slate-200 bg-white p-6 shadow-xl dark:border-slate-800 dark:bg-slate-900"
        >
          <AlertDialog.Title className="text-lg font-semibold">Remove passkey</AlertDialog.Title>
          <AlertDialog.Description className="mt-2 text-sm text-slate-600 dark:text-slate-400">
            You won't be able to log in or confirm payments with {passkey?.name ?? "this passkey"} any more. You can
            still use your password. To remove it from the device as well, use the device's password manager.
          </AlertDialog.Description>
          <div className="mt-6 flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
            <AlertDialog.Cancel asChild>
              <Button variant="outline" disabled={remove.isPending}>
                Cancel
              </Button>
            </AlertDialog.Cancel>
            <Button variant="destructive" busy={remove.isPending} onClick={() => void onRemove()}>
              {remove.isPending ? "Removing..." : "Remove"}
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
