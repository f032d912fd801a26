import { useEffect } from "react";
import { Link } from "react-router";
import { Card } from "@/components/ui/card";
import { LoadingBlock } from "@/components/ui/spinner";
import type { Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { formatRecentDate, toDate } from "@/lib/date";
import { formatSignedMoney } from "@/lib/money";
import { useRecentTransfers } from "../api/transfers";
import { TransferStatusIcon } from "./transfer-status-icon";

export function RecentTransactionsCard() {
  const { data, isPending, error } = useRecentTransfers();

  useEffect(() => {
    // The spec: fetch errors on the dashboard are only logged; the card shows its empty state.
    if (error) console.error("Could not load recent transactions", error);
  }, [error]);

  const transfers = data?.transfers ?? [];
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
      ) : transfers.length === 0 ? (
        <p className="py-8 text-center text-sm text-slate-500 dark:text-slate-400">No transactions yet</p>
      ) : (
        <ul className="mt-4 divide-y divide-slate-100 dark:divide-slate-800">
          {transfers.map((transfer) => (
            <RecentTransactionRow key={transfer.id} transfer={transfer} />
          ))}
        </ul>
      )}
    </Card>
  );
}

function RecentTransactionRow({ transfer }: { transfer: Transfer }) {
  const created = toDate(transfer.createdAt);
  return (
    <li className="flex items-center gap-3 py-3">
      <TransferStatusIcon status={transfer.status} />
      <div className="min-w-0 flex-1">
        <p className="truncate font-medium">{transfer.recipientName}</p>
        {created && (
          <p className="text-xs text-slate-500 dark:text-slate-400">
            <time dateTime={created.toISOString()}>{formatRecentDate(created)}</time>
          </p>
        )}
      </div>
      <p className="font-semibold tabular-nums">{formatSignedMoney(transfer.amountCents, "out")}</p>
    </li>
  );
}
