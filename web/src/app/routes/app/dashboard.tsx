import { NewTransactionCard, ResendLastTransactionCard } from "@/features/transfers/components/quick-action-cards";
import { RecentTransactionsCard } from "@/features/transfers/components/recent-transactions-card";
import { LimitsCard } from "@/features/transfers/components/limits-meter";
import { FreezeVouchersCard } from "@/features/transfers/components/freeze-vouchers-card";
import { CreditBalanceCard } from "@/features/referral/components/credit-balance-card";

export default function DashboardPage() {
  return (
    <div className="mx-auto w-full max-w-5xl">
      <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Quick Actions</h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">Send money quickly and securely</p>
      <div className="mt-6 grid gap-6 md:grid-cols-2">
        <NewTransactionCard />
        <ResendLastTransactionCard />
      </div>
      <CreditBalanceCard className="mt-6" />
      <div className="mt-6">
        <RecentTransactionsCard />
      </div>
      <div className="mt-6 grid gap-6 md:grid-cols-2">
        <LimitsCard />
        <FreezeVouchersCard />
      </div>
    </div>
  );
}
