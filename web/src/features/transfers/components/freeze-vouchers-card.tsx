import { Snowflake } from "lucide-react";
import { AlertDialog } from "radix-ui";
import { useState } from "react";
import { toast } from "sonner";
import { Button, buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { errorMessage } from "@/lib/errors";
import { formatMoney } from "@/lib/money";
import { useFreezeVouchers, useUncollected } from "../api/freeze";

export const FREEZE_TEXT = {
  button: "Freeze my vouchers",
  title: "Freeze all your vouchers?",
  confirm: "Yes, freeze my vouchers",
  keep: "Keep my vouchers",
  none: "You have no vouchers waiting to be collected.",
  checking: "Checking your vouchers…",
} as const;

function vouchers(n: number): string {
  return n === 1 ? "1 voucher" : `${n} vouchers`;
}

/** " 2 scheduled sends paused." after a toast's sentence; nothing when none was. */
function pausedSentence(n: number): string {
  if (n === 0) return "";
  return n === 1 ? " 1 scheduled send paused." : ` ${n} scheduled sends paused.`;
}

/**
 * The dashboard's 'Freeze my vouchers', for a sender who fears a scam or lost their phone: after
 * a confirmation that says what happens, every voucher not yet collected is cancelled at once,
 * each refunded in full, and the scheduled sends are paused. Disabled, with the reason, when
 * there is no voucher to freeze.
 */
export function FreezeVouchersCard() {
  const uncollected = useUncollected();
  const freeze = useFreezeVouchers();
  const [open, setOpen] = useState(false);
  const none = !uncollected.loading && !uncollected.error && uncollected.vouchers === 0;

  const confirm = async () => {
    try {
      const { cancelled, pausedSchedules } = await freeze.run();
      setOpen(false);
      const paused = pausedSentence(pausedSchedules);
      if (cancelled.length === 0) {
        toast.info("No vouchers cancelled", { description: `None of your vouchers was still waiting to be collected.${paused}` });
        return;
      }
      const refund = cancelled.reduce((sum, t) => sum + t.totalAmountCents, 0n);
      toast.success(`${vouchers(cancelled.length)} cancelled`, {
        description: `${formatMoney(refund)} will be refunded in full to your card${cancelled.length === 1 ? "" : "s"}.${paused}`,
      });
    } catch (error) {
      setOpen(false);
      toast.error("Freeze failed", { description: errorMessage(error, "There was a problem freezing your vouchers. Please try again.") });
    }
  };

  return (
    <Card aria-labelledby="freeze-vouchers-title" className="flex flex-col p-5 sm:p-6">
      <div className="flex items-center gap-3">
        <span className="flex size-10 items-center justify-center rounded-full bg-sky-50 text-sky-700 dark:bg-sky-950 dark:text-sky-300">
          <Snowflake aria-hidden="true" className="size-5" />
        </span>
        <h2 id="freeze-vouchers-title" className="text-lg font-semibold">
          Scam or lost phone?
        </h2>
      </div>
      <p className="mt-3 flex-1 text-sm text-slate-600 dark:text-slate-400">
        Cancel every voucher that has not been collected yet, all at once. Each is refunded in full.
      </p>
      <AlertDialog.Root open={open} onOpenChange={setOpen}>
        <AlertDialog.Trigger asChild>
          <Button
            variant="outline"
            className="mt-5 w-full"
            disabled={uncollected.loading || none}
            aria-describedby="freeze-vouchers-hint"
          >
            {FREEZE_TEXT.button}
          </Button>
        </AlertDialog.Trigger>
        <p id="freeze-vouchers-hint" className="mt-2 text-xs text-slate-500 dark:text-slate-400" aria-live="polite">
          {uncollected.loading
            ? FREEZE_TEXT.checking
            : none
              ? FREEZE_TEXT.none
              : uncollected.error
                ? "Your vouchers could not be counted just now."
                : `${vouchers(uncollected.vouchers)} waiting to be collected (${formatMoney(uncollected.cents)}).`}
        </p>
        <AlertDialog.Portal>
          <AlertDialog.Overlay className="fixed inset-0 z-50 bg-slate-950/50" />
          <AlertDialog.Content className="fixed top-1/2 left-1/2 z-50 max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-xl bg-white p-6 shadow-xl dark:bg-slate-900">
            <AlertDialog.Title className="text-lg font-semibold">{FREEZE_TEXT.title}</AlertDialog.Title>
            <AlertDialog.Description asChild>
              <div className="mt-2 space-y-2 text-sm text-slate-600 dark:text-slate-400">
                <p>
                  Every voucher that has not been collected yet
                  {uncollected.vouchers > 0 ? ` (${vouchers(uncollected.vouchers)})` : ""} will be cancelled at once.
                </p>
                <p>Each is refunded in full, fee included, to the card that paid for it.</p>
                <p>The recipients will no longer be able to collect the cash. This cannot be undone.</p>
                <p>Your scheduled sends are paused too, so no new voucher goes out. You can resume them on the Recipients page.</p>
              </div>
            </AlertDialog.Description>
            <div className="mt-6 flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
              <AlertDialog.Cancel className={buttonClasses("outline")}>{FREEZE_TEXT.keep}</AlertDialog.Cancel>
              <Button variant="destructive" busy={freeze.pending} onClick={() => void confirm()}>
                {freeze.pending ? "Freezing..." : FREEZE_TEXT.confirm}
              </Button>
            </div>
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
    </Card>
  );
}
