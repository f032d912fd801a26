import { CollectionStatus, RefundStatus, TransferStatus } from "@/gen/thumela/bff/v1/bff_pb";
import type { Bank, Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { bankAtm, bankName } from "@/lib/banks";
import { formatSaMoment, formatSaWeekdayDate, toDate } from "@/lib/date";
import { voucherLockedUntil } from "@/lib/voucher-lock";

/**
 * The voucher's state beside a transfer's status (DECISIONS.md: collection is separate from the
 * status): where the recipient stands with the cash, and for a cancelled or expired voucher,
 * where the refund stands. One place, so the dashboard, the history and the details dialog
 * always say the same.
 */

/** 'any FNB ATM': each bank pays out only its own vouchers (the bank chosen in the wizard). */
export function collectionPlace(bank: Bank): string {
  const name = bankName(bank);
  return name ? `any ${name} ATM` : "an ATM of the bank you chose";
}

/** A voucher that was cancelled or expired: its money is owed back to the sender. */
export function isClosedVoucher(transfer: Transfer): boolean {
  const status = transfer.voucher?.collectionStatus;
  return status === CollectionStatus.CANCELLED || status === CollectionStatus.EXPIRED;
}

/** A completed transfer whose voucher still waits for the recipient (it may be re-sent or cancelled). */
export function isAwaitingCollection(transfer: Transfer): boolean {
  return (
    transfer.status === TransferStatus.COMPLETED &&
    transfer.voucher?.collectionStatus === CollectionStatus.AWAITING_COLLECTION
  );
}

export type VoucherTone = "awaiting" | "locked" | "collected" | "closed";

export interface VoucherState {
  text: string;
  tone: VoucherTone;
}

/**
 * 'Awaiting collection · expires Mon 1 Dec', 'Locked until 14:05 after wrong PINs' (or 'until
 * Tue 2 Dec 09:10'), 'Collected at FNB ATM Sandton City, 13:15', 'Expired · refunded',
 * 'Cancelled · refund pending', 'Cancelled' or 'Expired' (Johannesburg time); undefined for a
 * transfer without a voucher. A refund is called done only when the server says REFUNDED.
 */
export function voucherState(transfer: Transfer, now: Date = new Date()): VoucherState | undefined {
  const voucher = transfer.voucher;
  if (!voucher) return undefined;
  switch (voucher.collectionStatus) {
    case CollectionStatus.AWAITING_COLLECTION: {
      const locked = voucherLockedUntil(voucher, now.getTime());
      if (locked) return { text: `Locked until ${formatSaMoment(locked, now)} after wrong PINs`, tone: "locked" };
      const expires = toDate(voucher.expiresAt);
      return {
        text: expires ? `Awaiting collection · expires ${formatSaWeekdayDate(expires)}` : "Awaiting collection",
        tone: "awaiting",
      };
    }
    case CollectionStatus.COLLECTED: {
      const place = voucher.collectedAtLocation || bankAtm(transfer.bank);
      const at = toDate(voucher.collectedAt);
      return { text: at ? `Collected at ${place}, ${formatSaMoment(at, now)}` : `Collected at ${place}`, tone: "collected" };
    }
    case CollectionStatus.CANCELLED:
    case CollectionStatus.EXPIRED: {
      // Why the voucher closed, then where its refund stands: a sender who did not cancel must
      // see that it expired, not wonder who cancelled it.
      const why = voucher.collectionStatus === CollectionStatus.CANCELLED ? "Cancelled" : "Expired";
      if (transfer.refundStatus === RefundStatus.REFUNDED) return { text: `${why} · refunded`, tone: "closed" };
      if (transfer.refundStatus === RefundStatus.PENDING) return { text: `${why} · refund pending`, tone: "closed" };
      return { text: why, tone: "closed" };
    }
    default:
      return undefined;
  }
}

/** What the details dialog's Withdrawal Location row says (see withdrawalLocation). */
export interface WithdrawalPlace {
  /** The row's value. */
  place: string;
  /** A place the sender named when sending, shown under a collected voucher's actual one. */
  chosen?: string;
}

/** Said in the Withdrawal Location row before the place the sender named, once collected elsewhere. */
export const CHOSEN_WHEN_SENDING = "Chosen when sending:";

/**
 * The details dialog's Withdrawal Location (the spec's label). Before collection, the place
 * chosen when sending ('Nearest ATM' by default, a link's `location` otherwise). Once the
 * voucher was collected, the ATM that paid it out, as its status says ('Collected at …'): the
 * planned 'Nearest ATM' beside 'Collected at FNB ATM Sandton City' read as a contradiction. A
 * place the sender named themselves stays readable under it, labelled as their choice; the
 * default 'Nearest ATM' was no one's choice and is dropped.
 */
export function withdrawalLocation(transfer: Transfer): WithdrawalPlace {
  const planned = transfer.withdrawalLocation;
  const voucher = transfer.voucher;
  if (voucher?.collectionStatus !== CollectionStatus.COLLECTED) return { place: planned?.name || "Not specified" };
  const name = bankName(transfer.bank);
  const place = voucher.collectedAtLocation || (name ? `${name} ATM` : "An ATM");
  const chosen = planned?.type === "param" && planned.name && planned.name !== place ? planned.name : undefined;
  return chosen ? { place, chosen } : { place };
}

/** Text colours of the voucher state, readable in both themes. */
export const VOUCHER_TONE_CLASS: Record<VoucherTone, string> = {
  awaiting: "text-slate-600 dark:text-slate-400",
  locked: "text-amber-700 dark:text-amber-400",
  collected: "text-emerald-700 dark:text-emerald-400",
  closed: "text-slate-600 dark:text-slate-400",
};

/**
 * What the details dialog says about the refund of a cancelled or expired voucher; undefined
 * for any other transfer.
 */
export function refundText(transfer: Transfer, total: string): string | undefined {
  if (!isClosedVoucher(transfer)) return undefined;
  switch (transfer.refundStatus) {
    case RefundStatus.REFUNDED:
      return `${total} was refunded to your card.`;
    case RefundStatus.PENDING:
      return `${total} is being refunded to your card.`;
    default:
      return "The refund to your card has not started yet.";
  }
}
