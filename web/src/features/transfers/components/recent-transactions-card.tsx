import { useEffect, useState } from "react";
import { Link } from "react-router";
import { Card } from "@/components/ui/card";
import { LoadError } from "@/components/ui/load-error";
import { LoadingBlock } from "@/components/ui/spinner";
import { TransferStatus } from "@/gen/thumela/bff/v1/bff_pb";
import type { Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { cn } from "@/lib/cn";
import { formatRecentDate, toDate } from "@/lib/date";
import { useLiveStatus } from "@/lib/live-status";
import { formatSignedMoney } from "@/lib/money";
import { useRecentTransfers } from "../api/transfers";
import { VOUCHER_TONE_CLASS, isClosedVoucher, voucherState } from "../lib/voucher-state";
import { TransactionDetailsDialog } from "./transaction-details-dialog";
import { TransferStatusIcon } from "./transfer-status-icon";

export const RECENT_LOAD_FAILED = "We couldn't load your recent transactions.";

export function RecentTransactionsCard() {
  // Rows update from the live stream; while it is down, rows in flight are re-read every 5 s.
  const poll = useLiveStatus() !== "connected";
  const { data, isPending, error, isFetching, refetch } = useRecentTransfers({ poll });
  const [selected, setSelected] = useState<Transfer>();

  useEffect(() => {
    // The spec: fetch errors on the dashboard are only logged (no toast). The card says it could
    // not load them, with 'Try again': "No transactions yet" would be untrue.
    if (error) console.error("Could not load recent transactions", error);
  }, [error]);

  const transfers = data?.transfers ?? [];
  // The open dialog follows the live list while its transfer is still in it.
  const shown = selected && (transfers.find((t) => t.id === selected.id) ?? selected);
  return (
    <Card aria-labelledby="recent-transactions-title" className="p-5 sm:p-6">
      <div className="flex items-center justify-between gap-4">
        <h2 id="recent-transactions-title" className="text-lg font-semibold">
          Recent Transactions
        </h2>
        <Link
          to="/transactions"
          className="rounded-sm text-sm font-medium text-brand-700 underline-offset-4 hover:underline dark:text-brand-300"
        >
          View All
        </Link>
      </div>
      {isPending ? (
        <LoadingBlock label="Loading recent transactions..." />
      ) : error && !data ? (
        <LoadError message={RECENT_LOAD_FAILED} retrying={isFetching} onRetry={() => void refetch()} className="p-6" />
      ) : transfers.length === 0 ? (
        <p className="py-8 text-center text-sm text-slate-500 dark:text-slate-400">No transactions yet</p>
      ) : (
        <ul className="mt-4 divide-y divide-slate-100 dark:divide-slate-800">
          {transfers.map((transfer) => (
            <RecentTransactionRow key={transfer.id} transfer={transfer} onOpen={() => setSelected(transfer)} />
          ))}
        </ul>
      )}
      <TransactionDetailsDialog transfer={shown} onOpenChange={(open) => !open && setSelected(undefined)} />
    </Card>
  );
}

function RecentTransactionRow({ transfer, onOpen }: { transfer: Transfer; onOpen: () => void }) {
  const created = toDate(transfer.createdAt);
  const state = voucherState(transfer);
  return (
    <li>
      <button
        type="button"
        onClick={onOpen}
        aria-haspopup="dialog"
        className="-mx-2 flex w-[calc(100%+1rem)] items-center gap-3 rounded-lg px-2 py-3 text-left hover:bg-slate-50 dark:hover:bg-slate-800/60"
      >
        <TransferStatusIcon status={transfer.status} muted={isClosedVoucher(transfer)} />
        <span className="min-w-0 flex-1">
          <span className="block truncate font-medium">{transfer.recipientName}</span>
          {created && (
            <span className="block text-xs text-slate-500 dark:text-slate-400">
              <time dateTime={created.toISOString()}>{formatRecentDate(created)}</time>
            </span>
          )}
          {state && <span className={cn("block text-xs", VOUCHER_TONE_CLASS[state.tone])}>{state.text}</span>}
        </span>
        {transfer.status === TransferStatus.FAILED ? (
          // Nothing was taken (DECISIONS.md): the attempted amount is struck through.
          <span className="tabular-nums text-slate-500 dark:text-slate-400">
            <s>{formatSignedMoney(transfer.amountCents, "out")}</s>
            <span className="sr-only"> (not charged)</span>
          </span>
        ) : (
          <span className="font-semibold tabular-nums">{formatSignedMoney(transfer.amountCents, "out")}</span>
        )}
      </button>
    </li>
  );
}
