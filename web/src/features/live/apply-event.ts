import { clone, create } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { createConnectQueryKey } from "@connectrpc/connect-query";
import type { QueryClient } from "@tanstack/react-query";
import {
  CollectionStatus,
  CreditService,
  GetTransferResponseSchema,
  PaymentMethodsService,
  RecipientsService,
  RefundStatus,
  SchedulesService,
  SmsDeliveryStatus,
  TransferSchema,
  TransfersService,
} from "@/gen/thumela/bff/v1/bff_pb";
import type {
  GetTransferResponse,
  ListTransfersResponse,
  SmsDelivery,
  Transfer,
  WatchEventsResponse,
} from "@/gen/thumela/bff/v1/bff_pb";
import { bankAtm } from "@/lib/banks";
import { cardRefundCents, creditReturnText } from "@/lib/credit";
import { toDate } from "@/lib/date";
import { formatMoney } from "@/lib/money";
import { formatPhone } from "@/lib/phone";
import { storeProfile } from "@/lib/profile-cache";
import { storeTransfer, transferQueryKey } from "@/lib/transfer-cache";
import { voucherLockedUntil } from "@/lib/voucher-lock";

/** Something the sender should hear about while the app is open (shown as a toast). */
export interface LiveNotice {
  /** One per transfer and happening: the same notice is never shown twice. */
  id: string;
  title: string;
  description: string;
  /** Something for the sender to act on (a warning toast); good news otherwise. */
  tone?: "warning";
}

/**
 * Brings the react-query cache up to date with one live event, and says what the sender should
 * be told of it: the cash collected, a refund made, a voucher locked at an ATM, or a voucher SMS
 * that could not be delivered.
 */
export function applyLiveEvent(
  queryClient: QueryClient,
  transport: Transport,
  response: WatchEventsResponse,
): LiveNotice | undefined {
  const { event } = response;
  let notice: LiveNotice | undefined;
  switch (event.case) {
    case "profileUpdated":
      if (event.value.profile) storeProfile(queryClient, transport, event.value.profile);
      break;
    case "paymentMethodsChanged":
      void queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: PaymentMethodsService.method.listPaymentMethods, cardinality: undefined }),
      });
      break;
    case "recipientsChanged":
      // Every list of them (the page's searches, the wizard's) is read again.
      void queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: RecipientsService.method.listRecipients, cardinality: undefined }),
      });
      break;
    case "schedulesChanged":
      // A schedule was made, paused, resumed, deleted or ran: its list is read again.
      void queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: SchedulesService.method.listSchedules, cardinality: undefined }),
      });
      break;
    case "creditChanged":
      // The balance is in the event, but the figures and movements are not: read them again.
      void queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: CreditService.method.getCredit, cardinality: undefined }),
      });
      break;
    case "transferUpdated": {
      const transfer = event.value.transfer;
      if (!transfer) break;
      notice = transferNotice(knownTransfer(queryClient, transport, transfer.id), transfer);
      storeTransfer(queryClient, transport, transfer);
      void queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: TransfersService.method.listTransfers, cardinality: undefined }),
      });
      void queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: TransfersService.method.getLimits, cardinality: undefined }),
      });
      if (transfer.scheduleId) {
        // A scheduled send's transfer (charged, or declined) changes how its schedule lists it.
        void queryClient.invalidateQueries({
          queryKey: createConnectQueryKey({ schema: SchedulesService.method.listSchedules, cardinality: undefined }),
        });
      }
      break;
    }
    case "smsDeliveryChanged": {
      const { transferId, smsDelivery } = event.value;
      if (!transferId || !smsDelivery) break;
      // The tab's copy (its GetTransfer data first): a late report of an earlier state changes
      // nothing and tells nothing.
      const known = knownTransfer(queryClient, transport, transferId);
      if (olderThan(smsDelivery, known?.smsDelivery)) break;
      notice = smsNotice(transferId, known, smsDelivery);
      const key = transferQueryKey(transport, transferId);
      const cached = queryClient.getQueryData<GetTransferResponse>(key);
      if (!cached?.transfer) {
        // Not read yet (or being read): an open dialog's read will include it.
        void queryClient.invalidateQueries({ queryKey: key, exact: true });
        break;
      }
      const transfer = Object.assign(clone(TransferSchema, cached.transfer), { smsDelivery });
      queryClient.setQueryData(key, create(GetTransferResponseSchema, { transfer }));
      break;
    }
    default:
      break;
  }
  return notice;
}

/**
 * The transfer as this tab last knew it, before the event: its GetTransfer data, or its row in
 * any list read; undefined when the tab has not seen it.
 */
function knownTransfer(queryClient: QueryClient, transport: Transport, id: string): Transfer | undefined {
  const read = queryClient.getQueryData<GetTransferResponse>(transferQueryKey(transport, id))?.transfer;
  if (read) return read;
  const lists = queryClient.getQueriesData<ListTransfersResponse>({
    queryKey: createConnectQueryKey({ schema: TransfersService.method.listTransfers, cardinality: "finite" }),
  });
  for (const [, list] of lists) {
    const row = list?.transfers?.find((t) => t.id === id);
    if (row) return row;
  }
  return undefined;
}

/**
 * The notice of a transfer's update: the cash collected, a collection the ATM network reversed
 * (no cash came out), the refund of a cancelled or expired voucher made, or the voucher locked by
 * wrong attempts at an ATM. Only for a change (previous, when known, was not so already).
 */
export function transferNotice(previous: Transfer | undefined, next: Transfer): LiveNotice | undefined {
  const voucher = next.voucher;
  const was = previous?.voucher;
  if (voucher?.collectionStatus === CollectionStatus.COLLECTED && was?.collectionStatus !== CollectionStatus.COLLECTED) {
    const where = voucher.collectedAtLocation || bankAtm(next.bank);
    return {
      // Per collection: after a reversal the same voucher can be collected again, and that is news too.
      id: `${next.id}:collected:${voucher.collectedAt?.seconds ?? 0n}`,
      title: "Cash collected",
      description: `${next.recipientName || "Your recipient"} collected ${formatMoney(next.amountCents)} at ${where}.`,
    };
  }
  if (was?.collectionStatus === CollectionStatus.COLLECTED && voucher?.collectionStatus === CollectionStatus.AWAITING_COLLECTION) {
    // The ATM reported that it dispensed nothing, after this tab had said "Cash collected": the
    // correction, as the e-mail's. Told only to a tab that knew of the collection.
    const where = was.collectedAtLocation || bankAtm(next.bank);
    return {
      id: `${next.id}:reversed:${was.collectedAt?.seconds ?? 0n}`,
      tone: "warning",
      title: "Cash not dispensed",
      description: `Correction: ${next.recipientName || "your recipient"} did not get the ${formatMoney(next.amountCents)} at ${where}. No cash was dispensed, the withdrawal was reversed, and the voucher can still be collected.`,
    };
  }
  if (next.refundStatus === RefundStatus.REFUNDED && previous?.refundStatus !== RefundStatus.REFUNDED) {
    return {
      id: `${next.id}:refunded`,
      title: "Refund complete",
      description: `${formatMoney(cardRefundCents(next))} was refunded to your card.${creditReturnText(next)}`,
    };
  }
  const lockedUntil = voucherLockedUntil(voucher);
  if (lockedUntil && toDate(previous?.voucher?.lockedUntil)?.getTime() !== lockedUntil.getTime()) {
    return {
      id: `${next.id}:locked:${lockedUntil.getTime()}`,
      tone: "warning",
      title: "Voucher locked",
      description: `A wrong PIN or phone number was typed 5 times at an ATM for ${next.recipientName || "your recipient"}'s voucher. Open the transfer to send a new voucher.`,
    };
  }
  return undefined;
}

/**
 * The notice of a voucher SMS the provider could not deliver (a wrong or unreachable number):
 * the sender may have left the dialog, and only they can change the number or send it again.
 * Once per failure (previous, when known, had not failed already for the same number).
 */
export function smsNotice(transferId: string, previous: Transfer | undefined, next: SmsDelivery): LiveNotice | undefined {
  if (next.status !== SmsDeliveryStatus.FAILED) return undefined;
  const before = previous?.smsDelivery;
  if (before?.status === SmsDeliveryStatus.FAILED && before.recipient === next.recipient) return undefined;
  const who = previous?.recipientName ? `${previous.recipientName}'s` : "Your recipient's";
  const reason = next.failureReason ? ` ${next.failureReason}` : "";
  return {
    id: `${transferId}:sms-failed:${next.recipient}:${next.updatedAt?.seconds ?? 0n}`,
    tone: "warning",
    title: "Voucher SMS not delivered",
    description: `${who} voucher SMS to ${formatPhone(next.recipient)} was not delivered.${reason} Open the transfer to change the number or resend the SMS.`,
  };
}

/** Whether `next` reports an earlier moment than what the cache holds (a late, stale answer). */
function olderThan(next: SmsDelivery, held: SmsDelivery | undefined): boolean {
  if (!held?.updatedAt || !next.updatedAt) return false;
  const a = next.updatedAt;
  const b = held.updatedAt;
  return a.seconds < b.seconds || (a.seconds === b.seconds && a.nanos < b.nanos);
}
