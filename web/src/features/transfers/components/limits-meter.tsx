import { useQuery } from "@connectrpc/connect-query";
import { Gauge } from "lucide-react";
import { LimitKind, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { GetLimitsResponse } from "@/gen/thumela/bff/v1/bff_pb";
import { Skeleton } from "@/components/ui/skeleton";
import { cn } from "@/lib/cn";
import { formatMoney } from "@/lib/money";

/**
 * The sender's limits as the transfers service counts them (GetLimits, Johannesburg days and
 * months). The live stream invalidates GetLimits on every transfer update, so the meter moves
 * after a send, a failure or a cancel without a reload.
 */
export function useLimits() {
  return useQuery(TransfersService.method.getLimits, {});
}

export interface LimitsSummary {
  dayLimit: bigint;
  dayLeft: bigint;
  monthLeft: bigint;
  /** The most the next transfer may be: the per-transfer limit or less, whatever binds. */
  nextMax: bigint;
  uncollectedCents: bigint;
  uncollectedVouchers: number;
}

export function summarise(res: GetLimitsResponse | undefined): LimitsSummary | undefined {
  const find = (kind: LimitKind) => res?.limits.find((limit) => limit.kind === kind);
  const day = find(LimitKind.DAILY);
  const month = find(LimitKind.MONTHLY);
  const next = find(LimitKind.PER_TRANSFER);
  if (!res || !day || !month || !next) return undefined;
  return {
    dayLimit: day.limitCents,
    dayLeft: day.remainingCents,
    monthLeft: month.remainingCents,
    nextMax: next.remainingCents,
    uncollectedCents: res.uncollectedCents,
    uncollectedVouchers: res.uncollectedVouchers,
  };
}

/** "R1 250,00 of R5 000,00 left today · R20 000,00 this month". */
export function allowanceText(s: LimitsSummary): string {
  return `${formatMoney(s.dayLeft)} of ${formatMoney(s.dayLimit)} left today · ${formatMoney(s.monthLeft)} this month`;
}

/** "R600,00 waiting in 2 uncollected vouchers"; undefined when none wait. */
export function uncollectedText(s: LimitsSummary): string | undefined {
  if (s.uncollectedVouchers <= 0) return undefined;
  const vouchers = s.uncollectedVouchers === 1 ? "1 uncollected voucher" : `${s.uncollectedVouchers} uncollected vouchers`;
  return `${formatMoney(s.uncollectedCents)} waiting in ${vouchers}`;
}

/**
 * The meter: what is left today (a bar and the sentence), this month, and the money waiting in
 * uncollected vouchers. With amountCents (the wizard's typed amount) it also says, politely
 * and before the server would refuse, when that is more than the next transfer may be.
 */
export function LimitsMeter({ amountCents, className }: { amountCents?: bigint; className?: string }) {
  const { data, isPending, isError, refetch } = useLimits();
  const s = summarise(data);
  if (isPending) {
    return (
      <div className={cn("space-y-2", className)} role="status" aria-live="polite">
        <span className="sr-only">Loading your limits…</span>
        <Skeleton className="h-2 w-full" />
        <Skeleton className="h-4 w-3/4" />
      </div>
    );
  }
  if (isError || !s) {
    return (
      <p className={cn("text-xs text-slate-500 dark:text-slate-400", className)}>
        Your limits could not be loaded.{" "}
        <button type="button" className="font-medium text-emerald-700 underline dark:text-emerald-400" onClick={() => void refetch()}>
          Try again
        </button>
      </p>
    );
  }
  const used = s.dayLimit > 0n ? Number(((s.dayLimit - s.dayLeft) * 100n) / s.dayLimit) : 0;
  const waiting = uncollectedText(s);
  const over = amountCents !== undefined && amountCents > s.nextMax;
  return (
    <div className={cn("space-y-1.5", className)} data-testid="limits-meter">
      <div
        role="meter"
        aria-label="Used of today's limit"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={used}
        aria-valuetext={allowanceText(s)}
        className="h-2 w-full overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800"
      >
        <div className="h-full rounded-full bg-emerald-600 dark:bg-emerald-500" style={{ width: `${used}%` }} />
      </div>
      <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="limits-allowance" aria-live="polite">
        {allowanceText(s)}
      </p>
      {waiting && (
        <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="limits-uncollected">
          {waiting}
        </p>
      )}
      {over && (
        <p role="status" className="text-xs font-medium text-amber-700 dark:text-amber-400">
          {s.nextMax > 0n ? `You can send up to ${formatMoney(s.nextMax)} in one transfer now.` : "You can't send more right now."}
        </p>
      )}
    </div>
  );
}

/** The dashboard's card: the same meter, with a heading. */
export function LimitsCard() {
  return (
    <section
      aria-labelledby="limits-card-title"
      className="rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900"
    >
      <h2 id="limits-card-title" className="flex items-center gap-2 text-base font-semibold text-slate-900 dark:text-white">
        <Gauge aria-hidden="true" className="size-5 text-emerald-600 dark:text-emerald-400" />
        Your limits
      </h2>
      <LimitsMeter className="mt-3" />
    </section>
  );
}
