import { CircleCheck, CircleHelp, CircleX, LoaderCircle } from "lucide-react";
import { useEffect, useRef } from "react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { toast } from "sonner";
import { Button, buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CollectionStatus, SmsDeliveryStatus, TransferStatus } from "@/gen/thumela/bff/v1/bff_pb";
import type { Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { track } from "@/lib/analytics";
import { bankAtm } from "@/lib/banks";
import { cardRefundCents } from "@/lib/credit";
import { formatLongDateTime, formatSaMoment, toDate } from "@/lib/date";
import { useLiveStatus } from "@/lib/live-status";
import { centsToDecimal, formatMoney } from "@/lib/money";
import { formatPhone } from "@/lib/phone";
import { isInFlight, useTransfer } from "../../api/transfers";
import { collectionPlace, refundText } from "../../lib/voucher-state";

export const RESULT_TEXT = {
  processingTitle: "Processing your transfer...",
  processing: "Your transfer is being processed. This may take a moment...",
  successTitle: "Transfer Successful",
  success: "Your transfer has been completed successfully!",
  errorTitle: "Transfer Failed",
  /** The error the wizard supplies when the transfer's status is failed (spec section 4). */
  failed: "Payment processing failed",
  /** The detail under it when the server gave no reason (the spec's polled message). */
  error: "Your transfer could not be processed. Please try again.",
  /** The toast when the transfer fails while the panel is open (spec section 8's table). */
  failedToast: "Failed to process transaction",
  unknownTitle: "Status Unknown",
  unknown: "We couldn't determine the status of your transfer. Please check your transaction history.",
} as const;

export type ResultState = "processing" | "success" | "error" | "unknown";

/** The panel's state from the transfer's status (spec section 4, DECISIONS.md's buttons). */
export function resultState(status: TransferStatus | undefined): ResultState {
  if (isInFlight(status)) return "processing";
  if (status === TransferStatus.COMPLETED) return "success";
  if (status === TransferStatus.FAILED) return "error";
  return "unknown";
}

/** While the create request is on its way: no transaction id yet. */
export function SubmittingPanel() {
  return (
    <Panel
      icon={<LoaderCircle aria-hidden="true" className="size-12 animate-spin text-brand-600" />}
      title={RESULT_TEXT.processingTitle}
    >
      <TransactionId id={undefined} />
    </Panel>
  );
}

interface TransferResultProps {
  transferId: string;
  onTryAgain: () => void;
  onSendAnother: () => void;
}

/**
 * Replaces the form once the transfer exists and follows its status as it changes: the live
 * stream writes the GetTransfer data; only while the stream is down is the status re-read every 3 s.
 */
export function TransferResult({ transferId, onTryAgain, onSendAnother }: TransferResultProps) {
  const poll = useLiveStatus() !== "connected";
  const { data, isPending } = useTransfer(transferId, { poll });
  const transfer = data?.transfer;
  const state = isPending ? "processing" : resultState(transfer?.status);
  useReportOutcome(transfer);
  useFailureToast(transfer);

  switch (state) {
    case "processing":
      return (
        <Panel
          icon={<LoaderCircle aria-hidden="true" className="size-12 animate-spin text-brand-600" />}
          title={RESULT_TEXT.processingTitle}
          actions={<TransactionsOrDashboard />}
        >
          <p>{RESULT_TEXT.processing}</p>
          <TransactionId id={transferId} />
        </Panel>
      );
    case "success":
      return (
        <Panel
          icon={<CircleCheck aria-hidden="true" className="size-12 text-emerald-600" />}
          title={RESULT_TEXT.successTitle}
          actions={
            <>
              <Link to="/dashboard" className={buttonClasses("outline")}>
                Back to Dashboard
              </Link>
              <Button onClick={onSendAnother}>Send Another Transfer</Button>
              <Link to="/transactions" className={buttonClasses("outline")}>
                View All Transactions
              </Link>
            </>
          }
        >
          <p>{RESULT_TEXT.success}</p>
          {transfer && <CompletedDetails transfer={transfer} />}
        </Panel>
      );
    case "error":
      return (
        <Panel
          icon={<CircleX aria-hidden="true" className="size-12 text-red-600" />}
          title={RESULT_TEXT.errorTitle}
          actions={
            <>
              <Button onClick={onTryAgain}>Try Again</Button>
              <Link to="/dashboard" className={buttonClasses("outline")}>
                Back to Dashboard
              </Link>
            </>
          }
        >
          <p className="font-medium text-slate-900 dark:text-white">{RESULT_TEXT.failed}</p>
          {/* The server's reason (the card's decline) as the detail, else what to do. */}
          <p className="mt-1 text-sm">{transfer?.failureReason || RESULT_TEXT.error}</p>
          <TransactionId id={transferId} />
        </Panel>
      );
    default:
      return (
        <Panel
          icon={<CircleHelp aria-hidden="true" className="size-12 text-amber-600" />}
          title={RESULT_TEXT.unknownTitle}
          actions={<TransactionsOrDashboard />}
        >
          <p>{RESULT_TEXT.unknown}</p>
        </Panel>
      );
  }
}

/** The way on while the outcome is not known yet (processing, or a status the client cannot read). */
function TransactionsOrDashboard() {
  return (
    <>
      <Link to="/transactions" className={buttonClasses("outline")}>
        View Transactions
      </Link>
      <Link to="/dashboard" className={buttonClasses("primary")}>
        Back to Dashboard
      </Link>
    </>
  );
}

/** transaction_completed / transaction_failed, once per transfer. */
function useReportOutcome(transfer: Transfer | undefined) {
  const reported = useRef<string>(undefined);
  const status = transfer?.status;
  useEffect(() => {
    if (!transfer || reported.current === transfer.id) return;
    if (status === TransferStatus.COMPLETED) {
      reported.current = transfer.id;
      track("transaction_completed", {
        amount: centsToDecimal(transfer.amountCents),
        transactionId: transfer.id,
        recipientName: transfer.recipientName,
      });
    } else if (status === TransferStatus.FAILED) {
      reported.current = transfer.id;
      track("transaction_failed", {
        amount: centsToDecimal(transfer.amountCents),
        error: transfer.failureReason || "Transaction failed on server",
      });
    }
  }, [transfer, status]);
}

/** The id of a transfer's "Transfer initiated" toast (the wizard's), which its failure dismisses. */
export function initiatedToastId(transferId: string): string {
  return `transfer-initiated:${transferId}`;
}

/**
 * 'Failed to process transaction' once, when a transfer this panel saw in another status fails
 * (the live stream's update, or the poll's read): the sender may be looking elsewhere while the
 * card is charged. A transfer that was already failed when the panel opened gets none: the panel
 * opens on "Transfer Failed", its title focused and its text announced, and a toast would say
 * it twice. The toast's id is the transfer's, so nothing shows it twice. A failed transfer's
 * "Transfer initiated" toast is dismissed either way (its words contradict the failure).
 */
function useFailureToast(transfer: Transfer | undefined) {
  // The transfer this panel follows, and whether its failure has been told (or needs none).
  const told = useRef<{ id: string; done: boolean }>(undefined);
  const status = transfer?.status;
  useEffect(() => {
    if (!transfer) return;
    // "Transfer initiated — being processed" is no longer true: it goes, whether or not this
    // panel adds a toast of its own.
    if (status === TransferStatus.FAILED) toast.dismiss(initiatedToastId(transfer.id));
    if (told.current?.id !== transfer.id) {
      told.current = { id: transfer.id, done: status === TransferStatus.FAILED };
      return;
    }
    if (status !== TransferStatus.FAILED || told.current.done) return;
    told.current.done = true;
    toast.error(RESULT_TEXT.failedToast, {
      id: `transfer-failed:${transfer.id}`,
      description: transfer.failureReason || RESULT_TEXT.failed,
    });
  }, [transfer, status]);
}

function CompletedDetails({ transfer }: { transfer: Transfer }) {
  const expires = toDate(transfer.voucher?.expiresAt);
  // After the voucher's live update (the cash collected, a cancellation, an expiry), the panel
  // says what happened instead of how to collect.
  const outcome = voucherOutcomeSentence(transfer);
  return (
    <div className="mx-auto mt-5 w-full max-w-md space-y-4 text-left">
      {transfer.voucher?.number && (
        <div className="rounded-lg border border-emerald-200 bg-emerald-50 p-4 dark:border-emerald-900 dark:bg-emerald-950/60">
          <p className="text-sm text-emerald-900 dark:text-emerald-200">Voucher number</p>
          <p className="font-mono text-2xl font-semibold tracking-wider">{transfer.voucher.number}</p>
          {outcome ? (
            <p className="mt-2 text-sm font-medium text-emerald-900 dark:text-emerald-200">{outcome}</p>
          ) : (
            <>
              <p className="mt-2 text-sm text-emerald-900 dark:text-emerald-200">
                {voucherSmsSentence(transfer)}
                {transfer.voucher.pinChosenBySender && " Give them your PIN yourself, not by SMS."} They withdraw the cash at{" "}
                {collectionPlace(transfer.bank)} with the voucher number, the PIN and their phone number.
              </p>
              {expires && (
                <p className="mt-2 text-sm font-medium text-emerald-900 dark:text-emerald-200">
                  Valid until <time dateTime={expires.toISOString()}>{formatLongDateTime(expires)}</time>
                </p>
              )}
            </>
          )}
        </div>
      )}
      <dl className="space-y-1.5 text-sm">
        <Line term="Amount">{formatMoney(transfer.amountCents)}</Line>
        <Line term="Fee">{transfer.feeWaived ? `${formatMoney(transfer.feeCents)} (first transfer free)` : formatMoney(transfer.feeCents)}</Line>
        <Line term="Total">{formatMoney(transfer.totalAmountCents)}</Line>
        {transfer.creditAppliedCents > 0n && (
          <>
            <Line term="Credit applied">−{formatMoney(transfer.creditAppliedCents)}</Line>
            <Line term="Charged to your card">{formatMoney(transfer.cardChargeCents)}</Line>
          </>
        )}
      </dl>
    </div>
  );
}

/**
 * What became of the voucher once it is no longer waiting: "Thandi Mokoena collected R500,00
 * at FNB ATM Sandton City, 13:15." (as the live 'Cash collected' notice says it), or the
 * cancellation or expiry with its refund; undefined while it waits for the recipient.
 */
export function voucherOutcomeSentence(transfer: Transfer, now: Date = new Date()): string | undefined {
  const voucher = transfer.voucher;
  switch (voucher?.collectionStatus) {
    case CollectionStatus.COLLECTED: {
      const name = transfer.recipientName || "Your recipient";
      const where = voucher.collectedAtLocation || bankAtm(transfer.bank);
      const at = toDate(voucher.collectedAt);
      return `${name} collected ${formatMoney(transfer.amountCents)} at ${where}${at ? `, ${formatSaMoment(at, now)}` : ""}.`;
    }
    case CollectionStatus.CANCELLED:
    case CollectionStatus.EXPIRED: {
      const what = voucher.collectionStatus === CollectionStatus.CANCELLED ? "was cancelled" : "expired";
      const refund = refundText(transfer, formatMoney(cardRefundCents(transfer)));
      return `This voucher ${what}: it can no longer be collected.${refund ? ` ${refund}` : ""}`;
    }
    default:
      return undefined;
  }
}

/**
 * Where the voucher's SMS is, in words: the panel says the recipient received it only once the
 * network reported it delivered. A completed transfer's SMS is usually still on its way; the live
 * stream moves this sentence on as the provider's reports arrive.
 */
export function voucherSmsSentence(transfer: Transfer): string {
  const name = transfer.recipientName || "The recipient";
  const what = transfer.voucher?.pinChosenBySender ? "the voucher number" : "the voucher number and PIN";
  const sms = transfer.smsDelivery;
  const to = formatPhone(sms?.recipient || transfer.recipientPhone);
  switch (sms?.status) {
    case SmsDeliveryStatus.DELIVERED:
      return `${name} received ${what} by SMS on ${to}.`;
    case SmsDeliveryStatus.SENT:
      return `We sent ${what} to ${name} by SMS on ${to}; the network has not confirmed delivery yet.`;
    case SmsDeliveryStatus.FAILED:
      return `We could not deliver the SMS with ${what} to ${to}. Open this transfer in your transactions to resend it or change the number.`;
    default:
      return `${name} gets ${what} by SMS on ${to}.`;
  }
}

function Line({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex justify-between gap-4">
      <dt className="text-slate-500 dark:text-slate-400">{term}</dt>
      <dd className="font-medium tabular-nums">{children}</dd>
    </div>
  );
}

function TransactionId({ id }: { id: string | undefined }) {
  return (
    <p className="mt-3 text-sm text-slate-500 dark:text-slate-400">
      Transaction ID: <span className="font-mono">{id ?? "Generating..."}</span>
    </p>
  );
}

interface PanelProps {
  icon: ReactNode;
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}

/**
 * The state's text is a live region (announced as it changes); the buttons are outside it.
 *
 * The panel replaces the form whose Send Money button (or the step-up dialog's) had the focus,
 * which then fell to the page's body: the next Tab started over at "Skip to content". So a
 * panel that finds the focus lost takes it on its title, and Tab goes on to its buttons. It
 * never takes the focus from anything else.
 */
function Panel({ icon, title, children, actions }: PanelProps) {
  const titleRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!document.activeElement || document.activeElement === document.body) titleRef.current?.focus();
  }, []);
  return (
    <Card aria-labelledby="transfer-result-title" className="p-6 text-center sm:p-8">
      <div role="status" className="flex flex-col items-center text-slate-700 dark:text-slate-300">
        {icon}
        <h2
          ref={titleRef}
          tabIndex={-1}
          id="transfer-result-title"
          className="mt-4 text-xl font-semibold text-slate-900 focus:outline-none dark:text-white"
        >
          {title}
        </h2>
        <div className="mt-2 w-full">{children}</div>
      </div>
      {actions && <div className="mt-6 flex flex-col justify-center gap-3 sm:flex-row">{actions}</div>}
    </Card>
  );
}
