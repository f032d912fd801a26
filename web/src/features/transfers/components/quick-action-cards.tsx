import { Repeat, Send } from "lucide-react";
import { Link } from "react-router";
import { Button, buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { formatMoney } from "@/lib/money";
import { sendAgainPath, useRecentTransfers } from "../api/transfers";

export function NewTransactionCard() {
  return (
    <Card aria-labelledby="new-transaction-title" className="flex flex-col p-5 sm:p-6">
      <div className="flex items-center gap-3">
        <span className="flex size-10 items-center justify-center rounded-full bg-brand-50 text-brand-700 dark:bg-brand-950 dark:text-brand-300">
          <Send aria-hidden="true" className="size-5" />
        </span>
        <h2 id="new-transaction-title" className="text-lg font-semibold">
          New Transaction
        </h2>
      </div>
      <p className="mt-3 flex-1 text-sm text-slate-600 dark:text-slate-400">
        Send cash to anyone in South Africa. They collect it at an ATM.
      </p>
      <Link to="/send-money" className={buttonClasses("primary", "md", "mt-5 w-full")}>
        Send Money
      </Link>
    </Card>
  );
}

export function ResendLastTransactionCard() {
  const { data, isPending, isError } = useRecentTransfers();
  const last = data?.transfers[0];
  // "No recent transactions" only once the server said so: while the list loads, or when it
  // could not be loaded (the Recent Transactions card beside it offers "Try again"), the button
  // says that instead.
  const unavailable = isPending ? "Loading…" : isError ? "Last transaction unavailable" : "No recent transactions";
  return (
    <Card aria-labelledby="resend-last-title" className="flex flex-col p-5 sm:p-6">
      <div className="flex items-center gap-3">
        <span className="flex size-10 items-center justify-center rounded-full bg-brand-50 text-brand-700 dark:bg-brand-950 dark:text-brand-300">
          <Repeat aria-hidden="true" className="size-5" />
        </span>
        <h2 id="resend-last-title" className="text-lg font-semibold">
          Resend Last Transaction
        </h2>
      </div>
      <p className="mt-3 flex-1 text-sm text-slate-600 dark:text-slate-400">
        Send the same amount to the same person again.
      </p>
      {last ? (
        <Link to={sendAgainPath(last)} className={buttonClasses("secondary", "md", "mt-5 w-full")}>
          Resend {formatMoney(last.amountCents)} to {last.recipientName}
        </Link>
      ) : (
        <Button variant="secondary" className="mt-5 w-full" disabled>
          {unavailable}
        </Button>
      )}
    </Card>
  );
}
