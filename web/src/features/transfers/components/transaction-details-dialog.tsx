import { cancelRefundText, cardRefundCents } from "@/lib/credit";
import { CircleAlert, CircleCheck, Clock, Copy } from "lucide-react";
import { AlertDialog } from "radix-ui";
import { useState } from "react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { toast } from "sonner";
import { Button, buttonClasses } from "@/components/ui/button";
import { Dialog, DialogContent } from "@/components/ui/dialog";
import { SmsDeliveryStatus, TransferStatus } from "@/gen/thumela/bff/v1/bff_pb";
import type { SmsDelivery, Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { cn } from "@/lib/cn";
import { formatLongDateTime, formatRecentDate, toDate } from "@/lib/date";
import { errorMessage } from "@/lib/errors";
import { useLiveStatus } from "@/lib/live-status";
import { formatMoney } from "@/lib/money";
import { formatPhone } from "@/lib/phone";
import { voucherLockedUntil } from "@/lib/voucher-lock";
import {
  paymentMethodLabel,
  sendAgainPath,
  smsDeliveryText,
  statusLabel,
  transferReference,
  transferStatusTone,
  useCancelTransfer,
  useRememberTransfer,
  useVoucherSms,
} from "../api/transfers";
import {
  CHOSEN_WHEN_SENDING,
  VOUCHER_TONE_CLASS,
  collectionPlace,
  isAwaitingCollection,
  refundText,
  voucherState,
  withdrawalLocation,
} from "../lib/voucher-state";
import { VoucherActions } from "./voucher-actions";
import { hasProofOfPayment, proofOfPaymentUrl } from "../lib/statement";

export const COPIED_MESSAGE = "Reference number copied to clipboard";

interface TransactionDetailsDialogProps {
  /** The transfer to show; undefined closes the dialog. */
  transfer: Transfer | undefined;
  onOpenChange: (open: boolean) => void;
}

/** The Transaction Details dialog opened from the dashboard's rows and the history table. */
export function TransactionDetailsDialog({ transfer, onOpenChange }: TransactionDetailsDialogProps) {
  return (
    <Dialog open={transfer !== undefined} onOpenChange={onOpenChange}>
      <DialogContent title="Transaction Details">
        {transfer && <TransactionDetails key={transfer.id} transfer={transfer} />}
      </DialogContent>
    </Dialog>
  );
}

/**
 * Whether the answer of this dialog's own action (answer) is still the newest state of the
 * transfer the dialog was given (listed), by the server's updated_at; without both times, the
 * answer is the last thing this tab learned.
 */
function answerIsNewer(answer: Transfer, listed: Transfer): boolean {
  const x = answer.updatedAt;
  const y = listed.updatedAt;
  if (!x || !y) return true;
  return x.seconds > y.seconds || (x.seconds === y.seconds && x.nanos > y.nanos);
}

function TransactionDetails({ transfer: initial }: { transfer: Transfer }) {
  // A cancellation, a resend or a new number answers the updated transfer: show it at once,
  // before the lists refresh, and the lists' (live) state again once it is newer.
  const [updated, setUpdated] = useState<Transfer>();
  const transfer = updated && updated.id === initial.id && answerIsNewer(updated, initial) ? updated : initial;
  const reference = transferReference(transfer);
  const created = toDate(transfer.createdAt);
  const expires = toDate(transfer.voucher?.expiresAt);
  const state = voucherState(transfer);
  const location = withdrawalLocation(transfer);
  const refund = refundText(transfer, formatMoney(cardRefundCents(transfer)));
  const awaiting = isAwaitingCollection(transfer);
  const lockedUntil = voucherLockedUntil(transfer.voucher);
  const { sms, checking, unread } = useVoucherSms(transfer, { poll: useLiveStatus() !== "connected" });
  const failed = transfer.status === TransferStatus.FAILED;

  const copyReference = async () => {
    try {
      await navigator.clipboard.writeText(reference);
      toast.success(COPIED_MESSAGE);
    } catch {
      toast.error("Could not copy the reference number");
    }
  };

  return (
    <div className="space-y-5">
      <div className="flex items-center justify-between gap-3 rounded-lg bg-slate-50 px-4 py-3 dark:bg-slate-800/60">
        <div>
          <p className="text-xs text-slate-500 dark:text-slate-400">Reference number</p>
          <p className="font-mono text-base font-semibold tracking-wide">{reference}</p>
        </div>
        <Button variant="ghost" size="icon" aria-label="Copy reference number" onClick={() => void copyReference()}>
          <Copy aria-hidden="true" className="size-4" />
        </Button>
      </div>

      <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2.5 text-sm">
        <Row term="Recipient">
          {transfer.recipientName}
          <span className="block text-slate-500 dark:text-slate-400">{formatPhone(transfer.recipientPhone)}</span>
        </Row>
        <Row term="Amount">{formatMoney(transfer.amountCents)}</Row>
        {failed ? (
          // A failed transfer took nothing (DECISIONS.md): the attempted figures stay readable,
          // struck through, beside what was charged.
          <>
            <Row term="Fee">
              <NotCharged attempted={transfer.feeCents} />
            </Row>
            <Row term="Total">
              <NotCharged attempted={transfer.totalAmountCents} />
            </Row>
            {transfer.creditAppliedCents > 0n && (
              <Row term="Credit applied">
                <NotCharged attempted={transfer.creditAppliedCents} label="Not used" />
              </Row>
            )}
          </>
        ) : (
          <>
            <Row term="Fee">
              {formatMoney(transfer.feeCents)}
              {transfer.feeWaived && <span className="ml-2 text-emerald-700 dark:text-emerald-400">First transfer free</span>}
            </Row>
            <Row term="Total">
              <span className="font-semibold">{formatMoney(transfer.totalAmountCents)}</span>
            </Row>
            {transfer.creditAppliedCents > 0n && (
              <>
                <Row term="Credit applied">−{formatMoney(transfer.creditAppliedCents)}</Row>
                <Row term="Charged to your card">{formatMoney(transfer.cardChargeCents)}</Row>
              </>
            )}
          </>
        )}
        <Row term="Date & Time">
          {created ? <time dateTime={created.toISOString()}>{formatRecentDate(created)}</time> : "Not recorded"}
        </Row>
        <Row term="Payment Method">
          {paymentMethodLabel(transfer.paymentMethodName, transfer.paymentMethodLastFour)}
        </Row>
        <Row term="Withdrawal Location">
          {location.place}
          {location.chosen && (
            <span className="block text-slate-500 dark:text-slate-400">
              {CHOSEN_WHEN_SENDING} {location.chosen}
            </span>
          )}
        </Row>
        <Row term="Status">
          {/* Polite live region: the collection, or the refund, is announced as it arrives. */}
          <span aria-live="polite" className="inline-flex flex-col items-end">
            <span className={cn("font-semibold", transferStatusTone(transfer))}>{statusLabel(transfer.status).toUpperCase()}</span>
            {state && <span className={VOUCHER_TONE_CLASS[state.tone]}>{state.text}</span>}
          </span>
        </Row>
        {refund && <Row term="Refund">{refund}</Row>}
        {transfer.voucher?.number && <Row term="Voucher number">{transfer.voucher.number}</Row>}
        {transfer.voucher && (
          <Row term="PIN">
            {transfer.voucher.pinChosenBySender
              ? `Chosen by you: give it to ${transfer.recipientName || "the recipient"} yourself`
              : pinBySmsText(sms)}
          </Row>
        )}
        {transfer.voucher && (
          <Row term="Voucher SMS">
            <VoucherSms sms={sms} checking={checking} unread={unread} />
          </Row>
        )}
        {expires && awaiting && (
          <Row term="Collect before">
            <time dateTime={expires.toISOString()}>{formatLongDateTime(expires)}</time>
          </Row>
        )}
        {transfer.failureReason && <Row term="Reason">{transfer.failureReason}</Row>}
      </dl>

      {failed && (
        <p className="rounded-lg bg-slate-50 px-4 py-3 text-sm text-slate-700 dark:bg-slate-800/60 dark:text-slate-300">
          {FAILED_NOT_CHARGED}
        </p>
      )}

      {awaiting && (
        <>
          <p className="rounded-lg bg-brand-50 px-4 py-3 text-sm text-brand-900 dark:bg-brand-950 dark:text-brand-100">
            Collect at {collectionPlace(transfer.bank)} with the voucher number, PIN and phone number.
          </p>
          {lockedUntil && (
            // The recipient at the ATM is told "locked for 24 hours"; the sender learns it here
            // (live), with the way out: a resend or a new number is a new voucher, unlocked.
            <p
              role="status"
              className="flex gap-2 rounded-lg bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
            >
              <CircleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
              <span>
                Locked until <time dateTime={lockedUntil.toISOString()}>{formatLongDateTime(lockedUntil)}</time>: a wrong PIN or
                phone number was typed 5 times at an ATM. To let {transfer.recipientName || "the recipient"} collect now, resend
                the SMS for a new voucher number.
              </span>
            </p>
          )}
          <VoucherActions transfer={transfer} onChanged={setUpdated} />
        </>
      )}

      <div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
        {awaiting && <CancelVoucherButton transfer={transfer} onCancelled={setUpdated} />}
        {/* A refunded transfer paid no one: it has no proof of payment (the BFF refuses it too). */}
        {hasProofOfPayment(transfer) && (
          <a href={proofOfPaymentUrl(transfer.id)} className={buttonClasses("outline")}>
            Proof of payment (PDF)
          </a>
        )}
        <Link to={sendAgainPath(transfer)} className={buttonClasses("primary")}>
          Send Similar
        </Link>
      </div>
    </div>
  );
}

/** What a failed transfer's dialog says about the money. */
export const FAILED_NOT_CHARGED = "This transfer failed, so nothing was taken from your card and no fee was charged.";

/** A figure that was attempted but not charged: struck through (and said so), then "Not charged". */
function NotCharged({ attempted, label = "Not charged" }: { attempted: bigint; label?: string }) {
  return (
    <span className="inline-flex flex-wrap items-baseline justify-end gap-x-2">
      <s className="text-slate-500 dark:text-slate-400">
        <span className="sr-only">attempted </span>
        {formatMoney(attempted)}
      </s>
      <span className="font-medium">{label}</span>
    </span>
  );
}

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-slate-500 dark:text-slate-400">{term}</dt>
      <dd className="text-right text-slate-900 dark:text-slate-100">{children}</dd>
    </>
  );
}

const SMS_LOOK: Record<SmsDeliveryStatus, { icon: typeof Clock; tone: string }> = {
  [SmsDeliveryStatus.UNSPECIFIED]: { icon: Clock, tone: "text-slate-600 dark:text-slate-400" },
  [SmsDeliveryStatus.QUEUED]: { icon: Clock, tone: "text-slate-600 dark:text-slate-400" },
  [SmsDeliveryStatus.SENT]: { icon: Clock, tone: "text-slate-600 dark:text-slate-400" },
  [SmsDeliveryStatus.DELIVERED]: { icon: CircleCheck, tone: "text-emerald-700 dark:text-emerald-400" },
  [SmsDeliveryStatus.FAILED]: { icon: CircleAlert, tone: "text-red-700 dark:text-red-400" },
};

/** Where a PIN Thumela chose went: with the voucher number, in the SMS, whose state it follows. */
function pinBySmsText(sms: SmsDelivery | undefined): string {
  switch (sms?.status) {
    case SmsDeliveryStatus.FAILED:
      return "In the voucher SMS, which was not delivered";
    case SmsDeliveryStatus.QUEUED:
      return "Goes by SMS with the voucher number";
    default:
      return "Sent by SMS with the voucher number";
  }
}

/** Said when the SMS's state could not be read (the read failed): it is not known, not absent. */
export const SMS_NOT_CHECKED = "Couldn't check the delivery report right now";

/**
 * The recipient's voucher SMS as the SMS provider last reported it. A polite live region, so
 * that a screen reader hears the delivery report arrive while the dialog is open. "No delivery
 * report yet" only once the state was read and has none: while it is being read, "Checking…";
 * never read (a transfer first seen through a live event whose read failed), SMS_NOT_CHECKED.
 */
function VoucherSms({ sms, checking, unread }: { sms: SmsDelivery | undefined; checking: boolean; unread: boolean }) {
  const look = sms ? (SMS_LOOK[sms.status] ?? SMS_LOOK[SmsDeliveryStatus.UNSPECIFIED]) : undefined;
  const Icon = look?.icon;
  return (
    <span aria-live="polite" className={cn("inline-flex flex-col items-end", look?.tone)}>
      {sms && Icon ? (
        <>
          <span className="inline-flex items-start gap-1.5">
            <Icon aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
            <span>{smsDeliveryText(sms)}</span>
          </span>
          {sms.status === SmsDeliveryStatus.FAILED && sms.failureReason && (
            <span className="text-slate-600 dark:text-slate-400">{sms.failureReason}</span>
          )}
        </>
      ) : (
        <span className="text-slate-500 dark:text-slate-400">{checking ? "Checking…" : unread ? SMS_NOT_CHECKED : "No delivery report yet"}</span>
      )}
    </span>
  );
}

/** Cancels an unclaimed voucher after a confirmation; the full amount goes back to the card. */
function CancelVoucherButton({ transfer, onCancelled }: { transfer: Transfer; onCancelled: (t: Transfer) => void }) {
  const [open, setOpen] = useState(false);
  const cancel = useCancelTransfer();
  const remember = useRememberTransfer();

  const confirm = async () => {
    try {
      const response = await cancel.mutateAsync({ id: transfer.id });
      const cancelled = response.transfer ?? transfer;
      remember(cancelled);
      onCancelled(cancelled);
      setOpen(false);
      toast.success("Voucher cancelled", {
        description: cancelRefundText(cancelled),
      });
    } catch (error) {
      setOpen(false);
      toast.error("Cancel failed", { description: errorMessage(error, "There was a problem cancelling the voucher.") });
    }
  };

  return (
    <AlertDialog.Root open={open} onOpenChange={setOpen}>
      <AlertDialog.Trigger className={buttonClasses("outline")}>Cancel voucher</AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-50 bg-slate-950/50" />
        <AlertDialog.Content className="fixed top-1/2 left-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-xl bg-white p-6 shadow-xl dark:bg-slate-900">
          <AlertDialog.Title className="text-lg font-semibold">Cancel this voucher?</AlertDialog.Title>
          <AlertDialog.Description className="mt-2 text-sm text-slate-600 dark:text-slate-400">
            {transfer.recipientName} will no longer be able to withdraw the cash.{" "}
            {transfer.creditAppliedCents > 0n
              ? cancelRefundText(transfer)
              : `The full amount of ${formatMoney(transfer.totalAmountCents)}, fee included, will be refunded to your card.`}
          </AlertDialog.Description>
          <div className="mt-6 flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
            <AlertDialog.Cancel className={buttonClasses("outline")}>Keep voucher</AlertDialog.Cancel>
            <Button variant="destructive" busy={cancel.isPending} onClick={() => void confirm()}>
              {cancel.isPending ? "Cancelling..." : "Yes, cancel voucher"}
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
