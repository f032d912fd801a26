import type { ReactNode } from "react";
import type { Bank, FeeQuote } from "@/gen/thumela/bff/v1/bff_pb";
import { cn } from "@/lib/cn";
import { errorMessage } from "@/lib/errors";
import { formatMoney } from "@/lib/money";
import { feeWithoutWaiver } from "@/lib/fee-quote";

interface ScheduleChargeProps {
  /** The amount the quote is for (the form's amount once typing has stopped). */
  amountCents: bigint | undefined;
  bank: Bank;
  /** The server's quote for amountCents to bank, when it has answered. */
  quote: FeeQuote | undefined;
  loading: boolean;
  error: unknown;
  /** "every week" / "every month". */
  every: string;
}

/**
 * What each send of the schedule will charge, shown before the sender confirms (the walk's F13:
 * R150 monthly was charged R160,45 each time, and the dialog never said so). The fee is the
 * server's quote (QuoteFee, as the wizard's Transaction Summary), and the schedule keeps it for
 * every send (docs/decisions.md); the first-transfer waiver is decided per send, so the full fee
 * is shown, and the waiver only noted.
 */
export function ScheduleCharge({ amountCents, bank, quote, loading, error, every }: ScheduleChargeProps) {
  const shown = quote && amountCents && quote.amountCents === amountCents && bank ? quote : undefined;
  const charge = shown ? feeWithoutWaiver(shown) : undefined;
  return (
    <section
      aria-labelledby="schedule-charge-title"
      aria-busy={loading || undefined}
      className="rounded-lg border border-slate-200 p-3 text-sm dark:border-slate-700"
    >
      <h3 id="schedule-charge-title" className="font-semibold">
        Each send charges
      </h3>
      {shown && charge ? (
        <>
          <dl className="mt-2 space-y-1.5">
            <Line term="Send amount">{formatMoney(shown.amountCents)}</Line>
            <Line term="Bank fee">{formatMoney(shown.bankFeeCents)}</Line>
            <Line term="Platform fee">{formatMoney(shown.platformFeeCents)}</Line>
            <Line term="Fee per send">{formatMoney(charge.feeCents)}</Line>
            <Line term="Total per send" strong className="border-t border-slate-200 pt-1.5 dark:border-slate-700">
              {formatMoney(charge.totalCents)}
            </Line>
          </dl>
          <p className="mt-2 text-slate-600 dark:text-slate-400">
            {formatMoney(charge.totalCents)} is charged to your card {every}. This fee is kept for every send of this
            schedule.
          </p>
          {shown.waived && (
            <p className="mt-2 text-emerald-800 dark:text-emerald-300">
              Your first transfer is free: if a send of this schedule is your first transfer, its fee is waived.
            </p>
          )}
        </>
      ) : (
        <p className="mt-1 text-slate-600 dark:text-slate-400">
          {error
            ? errorMessage(error, "The fee could not be worked out right now.")
            : loading
              ? "Working out the fee…"
              : "Enter the amount to see the fee and the total each send charges."}
        </p>
      )}
    </section>
  );
}

function Line({ term, children, strong = false, className }: { term: string; children: ReactNode; strong?: boolean; className?: string }) {
  return (
    <div className={cn("flex items-baseline justify-between gap-4", className)}>
      <dt className={strong ? "font-semibold" : "text-slate-600 dark:text-slate-400"}>{term}</dt>
      <dd className={strong ? "font-semibold tabular-nums" : "tabular-nums"}>{children}</dd>
    </div>
  );
}
