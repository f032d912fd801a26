import { Card } from "@/components/ui/card";
import type { Bank } from "@/gen/thumela/bff/v1/bff_pb";
import { cn } from "@/lib/cn";
import { errorMessage } from "@/lib/errors";
import { formatMoney } from "@/lib/money";
import type { ReactNode } from "react";
import { useFeeQuote } from "../../api/transfers";

interface TransactionSummaryProps {
  amountCents: bigint | undefined;
  bank: Bank | undefined;
}

/**
 * The sticky 'Transaction Summary': the server's fee quote for the amount and bank (bank fee +
 * platform fee). On the sender's first transfer the fee is waived: it is shown struck through
 * with 'First transfer free!'.
 */
export function TransactionSummary({ amountCents, bank }: TransactionSummaryProps) {
  const { data, error, isFetching } = useFeeQuote(bank, amountCents);
  const quote = bank && amountCents && amountCents > 0n ? data?.quote : undefined;
  const waived = quote?.waived ?? false;

  return (
    <Card aria-labelledby="summary-title" aria-busy={isFetching || undefined} className="p-5 lg:sticky lg:top-20">
      <h2 id="summary-title" className="text-lg font-semibold">
        Transaction Summary
      </h2>
      <dl className="mt-4 space-y-2.5 text-sm">
        <Line term="Send amount">{amountCents && amountCents > 0n ? formatMoney(amountCents) : "—"}</Line>
        {quote ? (
          <>
            <Line term="Bank fee">
              <Fee cents={quote.bankFeeCents} waived={waived} />
            </Line>
            <Line term="Platform fee">
              <Fee cents={quote.platformFeeCents} waived={waived} />
            </Line>
            <Line term="Total fees">
              {waived ? (
                <>
                  <s className="mr-2 text-slate-500 dark:text-slate-400">
                    <span className="sr-only">was </span>
                    {formatMoney(quote.waivedFeeCents)}
                  </s>
                  {formatMoney(quote.totalFeeCents)}
                </>
              ) : (
                formatMoney(quote.totalFeeCents)
              )}
            </Line>
            {/* The rule above is the line's own: a <dl> holds dt/dd groups, one <div> deep at most. */}
            <Line term="Total amount" strong className="border-t border-slate-200 pt-2.5 dark:border-slate-700">
              {formatMoney(quote.totalAmountCents)}
            </Line>
          </>
        ) : null}
      </dl>
      {!quote && (
        <p className="mt-2.5 text-sm text-slate-500 dark:text-slate-400">
          {error
            ? errorMessage(error, "The fees could not be worked out right now.")
            : "Enter the amount and choose the recipient's bank to see the fees."}
        </p>
      )}
      {waived && (
        <p className="mt-4 rounded-lg bg-emerald-50 px-3 py-2 text-sm font-semibold text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300">
          First transfer free!
        </p>
      )}
      <p className="mt-4 text-xs text-slate-500 dark:text-slate-400">
        Fees are estimates and may vary with the bank's rates. We charge the bank's standard eWallet/CashSend fee plus
        a 0.3% platform fee.
      </p>
    </Card>
  );
}

function Line({
  term,
  children,
  strong = false,
  className,
}: {
  term: string;
  children: ReactNode;
  strong?: boolean;
  className?: string;
}) {
  return (
    <div className={cn("flex items-baseline justify-between gap-4", className)}>
      <dt className={strong ? "font-semibold" : "text-slate-600 dark:text-slate-400"}>{term}</dt>
      <dd className={strong ? "text-base font-semibold tabular-nums" : "tabular-nums"}>{children}</dd>
    </div>
  );
}

function Fee({ cents, waived }: { cents: bigint; waived: boolean }) {
  if (!waived) return <>{formatMoney(cents)}</>;
  return (
    <s className="text-slate-500 dark:text-slate-400">
      <span className="sr-only">waived </span>
      {formatMoney(cents)}
    </s>
  );
}
