import { RefundStatus, TransferStatus } from "@/gen/thumela/bff/v1/bff_pb";
import type { Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { isClosedVoucher } from "./voucher-state";

/**
 * The statement and proof-of-payment files the BFF makes (docs/statements.md). They are plain
 * links, so the browser sends the session cookie and downloads the file itself.
 */

export type StatementFormat = "csv" | "pdf";

/** Today's date in Johannesburg as YYYY-MM-DD. */
export function saToday(now: Date = new Date()): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: "Africa/Johannesburg" }).format(now);
}

/** The first and last day of the current month in Johannesburg: the dialog's default. */
export function thisMonth(now: Date = new Date()): { from: string; to: string } {
  const today = saToday(now);
  const [y, m] = today.split("-").map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const mm = String(m).padStart(2, "0");
  return { from: `${y}-${mm}-01`, to: `${y}-${mm}-${String(last).padStart(2, "0")}` };
}

/** The server's rules, checked first so that the link never leads to an error page. */
export function periodError(from: string, to: string): string | undefined {
  const iso = /^\d{4}-\d{2}-\d{2}$/;
  if (!iso.test(from) || !iso.test(to)) return "Choose the first and the last day.";
  if (to < from) return "The last day is before the first day.";
  const [y, m, d] = from.split("-").map(Number) as [number, number, number];
  const limit = new Date(Date.UTC(y + 1, m - 1, d)); // 12 months after from: the first day too far
  const [ty, tm, td] = to.split("-").map(Number) as [number, number, number];
  if (Date.UTC(ty, tm - 1, td + 1) > limit.getTime()) return "A statement covers at most 12 months.";
  return undefined;
}

export function statementUrl(from: string, to: string, format: StatementFormat): string {
  const q = new URLSearchParams({ from, to, format });
  return `/api/statement?${q.toString()}`;
}

/**
 * Whether the transfer has a proof of payment, as the BFF decides (statements.ProofRefusal): a
 * completed transfer whose money reached or awaits its recipient. A cancelled or expired
 * voucher's transfer, refunded or being refunded, paid no one, so no proof is offered for it.
 */
export function hasProofOfPayment(transfer: Transfer): boolean {
  return (
    transfer.status === TransferStatus.COMPLETED &&
    !isClosedVoucher(transfer) &&
    transfer.refundStatus !== RefundStatus.PENDING &&
    transfer.refundStatus !== RefundStatus.REFUNDED
  );
}

export function proofOfPaymentUrl(transferId: string): string {
  return `/api/transfers/${encodeURIComponent(transferId)}/proof-of-payment.pdf`;
}
