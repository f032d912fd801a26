import { Card } from "@/components/ui/card";
import type { Bank, FeeQuote } from "@/gen/thumela/bff/v1/bff_pb";
import { cn } from "@/lib/cn";
import { creditSplit, useCredit } from "@/lib/credit";
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
 * with 'First transfer free!'. With transfer credit, the same 'Credit applied' and 'Charged to
 * your card' lines as the confirmation step's 'Payment' box (useCreditEstimate).
 */
export function TransactionSummary({ amountCents, bank }: TransactionSummaryProps) {
  const { data, error, isFetching } = useFeeQuote(bank, amountCents);
  const quote = bank && amountCents && amountCents > 0n ? data?.quote : undefined;
  const credit = useCreditEstimate(quote);
  const waived = quote?.waived ?? false;

  return (
    <Card aria-labelledby="summary-title" aria-busy={isFetching || undefined} className="p-5 lg:sticky lg:top-20">
      <h2 id="summary-title" className="text-lg font-semibold">
        Transaction Summary
      </h2>
      <dl className="mt-4 space-y-2.5 text-sm">
        <SummaryLine term="Send amount">{amountCents && amountCents > 0n ? formatMoney(amountCents) : "—"}</SummaryLine>
        {quote ? <FeeLines quote={quote} credit={credit} /> : null}
      </dl>
      {!quote && (
        <p className="mt-2.5 text-sm text-slate-500 dark:text-slate-400">
          {error ? errorMessage(error, FEES_UNKNOWN) : "Enter the amount and choose the recipient's bank to see the fees."}
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

/** When QuoteFee failed without a reason to show. */
export const FEES_UNKNOWN = "The fees could not be worked out right now.";

/** How a quoted total would be paid: the sender's credit balance, its part and the card's. */
export interface CreditEstimate {
  balanceCents: bigint;
  creditCents: bigint;
  cardCents: bigint;
}

/**
 * How `quote` would be paid with the sender's transfer credit (GetCredit's balance; the live
 * stream's credit_changed refreshes it): the credit pays the fee, min(balance, fee), and the card
 * the rest, the amount always (lib/credit creditSplit, docs/credit.md). An estimate: the server
 * decides when the transfer is made. The one computation behind the Transaction Summary's and
 * the confirmation step's credit lines; nothing of credit while there is no quote.
 */
export function useCreditEstimate(quote: FeeQuote | undefined): CreditEstimate {
  const credit = useCredit();
  const balanceCents = credit.data?.balanceCents ?? 0n;
  if (!quote) return { balanceCents, creditCents: 0n, cardCents: 0n };
  return { balanceCents, ...creditSplit(balanceCents, quote.totalFeeCents, quote.totalAmountCents) };
}

/**
 * The quote's lines (spec section 9): bank fee, platform fee, total fees and the total amount,
 * a waived first-transfer fee struck through, and, when credit pays part of it, 'Credit applied'
 * and 'Charged to your card'. Inside a <dl>: the Transaction Summary's, and the confirmation
 * step's 'Payment' box, so the total shows above 'Send Money' where the summary stacks below the
 * wizard (under 1024 px).
 */
export function FeeLines({ quote, credit }: { quote: FeeQuote; credit?: CreditEstimate }) {
  const waived = quote.waived;
  return (
    <>
      <SummaryLine term="Bank fee">
        <Fee cents={quote.bankFeeCents} waived={waived} />
      </SummaryLine>
      <SummaryLine term="Platform fee">
        <Fee cents={quote.platformFeeCents} waived={waived} />
      </SummaryLine>
      <SummaryLine term="Total fees">
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
      </SummaryLine>
      {/* The rule above is the line's own: a <dl> holds dt/dd groups, one <div> deep at most. */}
      <SummaryLine term="Total amount" strong className="border-t border-slate-200 pt-2.5 dark:border-slate-700">
        {formatMoney(quote.totalAmountCents)}
      </SummaryLine>
      {credit && credit.creditCents > 0n && (
        <>
          <SummaryLine term="Credit applied">
            <span className="text-emerald-700 dark:text-emerald-400">−{formatMoney(credit.creditCents)}</span>
          </SummaryLine>
          <SummaryLine term="Charged to your card" strong>
            {formatMoney(credit.cardCents)}
          </SummaryLine>
        </>
      )}
    </>
  );
}

/** One term and its figure in a fee list. */
export function SummaryLine({
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
