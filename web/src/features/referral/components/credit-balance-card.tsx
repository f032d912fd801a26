import { Gift } from "lucide-react";
import { Link } from "react-router";
import { Card } from "@/components/ui/card";
import { cn } from "@/lib/cn";
import { useCredit } from "@/lib/credit";
import { formatMoney } from "@/lib/money";

/**
 * The dashboard's 'Transfer credit' card: shown only while the sender has some (live: the
 * credit_changed event reads it again). Nothing while loading, on an error or at zero.
 */
export function CreditBalanceCard({ className }: { className?: string }) {
  const credit = useCredit();
  const balance = credit.data?.balanceCents ?? 0n;
  if (balance <= 0n) return null;
  return (
    <Card aria-labelledby="credit-balance-title" className={cn("flex flex-wrap items-center gap-4 p-5", className)}>
      <span className="flex size-11 shrink-0 items-center justify-center rounded-full bg-emerald-50 text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300">
        <Gift aria-hidden="true" className="size-5" />
      </span>
      <div className="min-w-0 flex-1">
        <h2 id="credit-balance-title" className="text-sm font-medium text-slate-600 dark:text-slate-400">
          Transfer credit
        </h2>
        <p className="text-2xl font-bold tabular-nums">{formatMoney(balance)}</p>
        <p className="text-sm text-slate-600 dark:text-slate-400">Pays the fees of your next transfers; your card pays the amounts.</p>
      </div>
      <Link to="/refer-friend" className="shrink-0 text-sm font-medium text-brand-700 underline-offset-4 hover:underline dark:text-brand-400">
        Earn more
      </Link>
    </Card>
  );
}
