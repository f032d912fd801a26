import type { MessageInitShape } from "@bufbuild/protobuf";
import { createConnectQueryKey, useMutation, useQuery, useTransport } from "@connectrpc/connect-query";
import { keepPreviousData, skipToken, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import {
  SmsDeliveryStatus,
  TransferStatus,
  TransfersService,
} from "@/gen/thumela/bff/v1/bff_pb";
import type { ListTransfersRequestSchema, SmsDelivery, Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { formatSaTimeOfDay, toDate } from "@/lib/date";
import { centsToDecimal } from "@/lib/money";
import { formatPhone } from "@/lib/phone";
import { smsStateUnread, storeTransfer } from "@/lib/transfer-cache";
import { isClosedVoucher } from "../lib/voucher-state";

export const RECENT_TRANSFERS_COUNT = 3;
export const HISTORY_PAGE_SIZE = 5;
/** Fallback polling while the live stream is down (spec: 5 s dashboard rows, 3 s result panel). */
export const DASHBOARD_POLL_MS = 5000;
export const RESULT_POLL_MS = 3000;
/** Fallback polling of the voucher SMS's state in the details dialog while the stream is down. */
export const SMS_POLL_MS = 5000;

const listTransfers = TransfersService.method.listTransfers;
const getTransfer = TransfersService.method.getTransfer;

/** Pending and processing transfers can still change by themselves. */
export function isInFlight(status: TransferStatus | undefined): boolean {
  return status === TransferStatus.PENDING || status === TransferStatus.PROCESSING;
}

/**
 * The newest transfers for the dashboard (one request shared by its cards). The live stream
 * invalidates ListTransfers; while it is down, rows still in flight are re-read every 5 s.
 */
export function useRecentTransfers({ poll = false }: { poll?: boolean } = {}) {
  return useQuery(
    listTransfers,
    { page: 1, pageSize: RECENT_TRANSFERS_COUNT },
    {
      refetchInterval: (query) =>
        poll && query.state.data?.transfers.some((t) => isInFlight(t.status)) ? DASHBOARD_POLL_MS : false,
    },
  );
}

/** One page of the transaction history; the search runs on the server. */
export function useTransferHistory(input: MessageInitShape<typeof ListTransfersRequestSchema>) {
  return useQuery(listTransfers, { pageSize: HISTORY_PAGE_SIZE, ...input }, { placeholderData: keepPreviousData });
}

/**
 * One transfer, kept fresh by the live stream (it writes this query with setQueryData). While the
 * stream is down and the transfer is still in flight, it is re-read every 3 s.
 */
export function useTransfer(id: string | undefined, { poll }: { poll: boolean }) {
  return useQuery(getTransfer, id ? { id } : skipToken, {
    refetchInterval: (query) => (poll && isInFlight(query.state.data?.transfer?.status) ? RESULT_POLL_MS : false),
  });
}

/**
 * Puts a transfer the server just answered into the GetTransfer cache (keeping the voucher SMS's
 * state, which the answers do not carry) and refreshes the lists.
 */
export function useRememberTransfer() {
  const queryClient = useQueryClient();
  const transport = useTransport();
  return useCallback(
    (transfer: Transfer) => {
      storeTransfer(queryClient, transport, transfer);
      void queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: listTransfers, cardinality: "finite" }),
      });
    },
    [queryClient, transport],
  );
}

export function useCreateTransfer() {
  return useMutation(TransfersService.method.createTransfer);
}

export function useCancelTransfer() {
  return useMutation(TransfersService.method.cancelTransfer);
}

/** Sends the voucher SMS again: a new voucher number (and PIN, unless the sender chose it). */
export function useResendVoucher() {
  return useMutation(TransfersService.method.resendVoucher);
}

/** Sends the voucher to another number, re-issued as a resend is. */
export function useChangeRecipientPhone() {
  return useMutation(TransfersService.method.changeRecipientPhone);
}

/** The five banks, with their display names (ListBanks). */
export function useBanks() {
  return useQuery(TransfersService.method.listBanks, {}, { staleTime: 60 * 60_000 });
}

/** The fee quote for an amount to a bank (lib/fee-quote: the schedule dialog shows it too). */
export { useFeeQuote } from "@/lib/fee-quote";

/** The sender's saved cards (lib/payment-cards: the schedule dialog reads them too). */
export { usePaymentCards } from "@/lib/payment-cards";

export const STATUS_LABEL: Record<TransferStatus, string> = {
  [TransferStatus.UNSPECIFIED]: "Unknown",
  [TransferStatus.PENDING]: "Pending",
  [TransferStatus.PROCESSING]: "Processing",
  [TransferStatus.COMPLETED]: "Completed",
  [TransferStatus.FAILED]: "Failed",
};

/** The label of a status; a status this client does not know yet reads 'Unknown'. */
export function statusLabel(status: TransferStatus): string {
  return STATUS_LABEL[status] ?? STATUS_LABEL[TransferStatus.UNSPECIFIED];
}

/** Text colour by status: completed green, failed red, anything else yellow. */
export function statusTone(status: TransferStatus): string {
  switch (status) {
    case TransferStatus.COMPLETED:
      return "text-emerald-700 dark:text-emerald-400";
    case TransferStatus.FAILED:
      return "text-red-700 dark:text-red-400";
    default:
      return "text-amber-700 dark:text-amber-400";
  }
}

/** A badge's colours by status, same scheme. */
export function statusBadgeTone(status: TransferStatus): string {
  switch (status) {
    case TransferStatus.COMPLETED:
      return "bg-emerald-50 text-emerald-800 ring-emerald-600/20 dark:bg-emerald-950 dark:text-emerald-300";
    case TransferStatus.FAILED:
      return "bg-red-50 text-red-800 ring-red-600/20 dark:bg-red-950 dark:text-red-300";
    default:
      return "bg-amber-50 text-amber-800 ring-amber-600/20 dark:bg-amber-950 dark:text-amber-300";
  }
}

const NEUTRAL_TONE = "text-slate-600 dark:text-slate-300";
const NEUTRAL_BADGE_TONE = "bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-300";

/**
 * A transfer's status colour: a completed transfer whose voucher was cancelled or expired is
 * not a success to celebrate (its money goes back), so it is neutral; otherwise as statusTone.
 */
export function transferStatusTone(transfer: Transfer): string {
  return isClosedVoucher(transfer) ? NEUTRAL_TONE : statusTone(transfer.status);
}

/** A transfer's badge colours, by the same rule as transferStatusTone. */
export function transferBadgeTone(transfer: Transfer): string {
  return isClosedVoucher(transfer) ? NEUTRAL_BADGE_TONE : statusBadgeTone(transfer.status);
}

/** 'name (•••• 1234)', or 'Unknown payment method' when the transfer has none on record. */
export function paymentMethodLabel(name: string, lastFour: string): string {
  if (!name && !lastFour) return "Unknown payment method";
  if (!lastFour) return name;
  return `${name || "Card"} (•••• ${lastFour})`;
}

/** The reference the user quotes: the first 8 characters of the id. */
export function transferReference(transfer: Pick<Transfer, "id">): string {
  return transfer.id.slice(0, 8);
}

/**
 * /send-money prefilled with a past transfer's amount, recipient, phone and bank; the wizard
 * then prefers the saved recipient's current name and bank for that phone, if there is one.
 */
export function sendAgainPath(transfer: Transfer): string {
  const params = new URLSearchParams({
    amount: centsToDecimal(transfer.amountCents),
    recipient: transfer.recipientName,
    phone: transfer.recipientPhone,
  });
  if (transfer.bank) params.set("bank", String(transfer.bank));
  return `/send-money?${params.toString()}`;
}

/** Delivered and failed are final: nothing more will happen to the SMS. */
export function isFinalSms(sms: SmsDelivery | undefined): boolean {
  return sms?.status === SmsDeliveryStatus.DELIVERED || sms?.status === SmsDeliveryStatus.FAILED;
}

/**
 * The state of the SMS that carried a transfer's voucher to its recipient. Lists do not carry
 * it, so the details dialog reads the transfer (GetTransfer, which the live stream then keeps
 * up to date); while the stream is down and the SMS is still on its way, it is re-read every 5 s.
 * `sms` is undefined for a transfer without a voucher and while the state is not known (being
 * read: `checking`; not read because the read failed: `unread`; or not reported, e.g. the
 * notifications service did not answer). A transfer the live stream put in the cache before it
 * was ever read has no SMS state yet (lib/transfer-cache's smsStateUnread): its data is stale,
 * so it is read when the dialog opens, and it is `checking` meanwhile, never "no report yet".
 */
export function useVoucherSms(
  transfer: Transfer,
  { poll }: { poll: boolean },
): { sms: SmsDelivery | undefined; checking: boolean; unread: boolean } {
  const query = useQuery(getTransfer, transfer.voucher ? { id: transfer.id } : skipToken, {
    refetchInterval: (q) => (poll && !isFinalSms(q.state.data?.transfer?.smsDelivery) ? SMS_POLL_MS : false),
  });
  const sms = query.data?.transfer?.smsDelivery ?? transfer.smsDelivery;
  const unread = !sms && smsStateUnread(query.data?.transfer, query.dataUpdatedAt);
  return { sms, checking: !sms && (query.isPending || (unread && query.isFetching)), unread: unread && !query.isFetching };
}

/** What the sender reads about the voucher SMS, e.g. 'SMS delivered to +27 82 123 4567 at 13:12'. */
export function smsDeliveryText(sms: SmsDelivery, now: Date = new Date()): string {
  const to = formatPhone(sms.recipient);
  switch (sms.status) {
    case SmsDeliveryStatus.DELIVERED: {
      const at = toDate(sms.updatedAt);
      return at ? `SMS delivered to ${to} ${formatSaTimeOfDay(at, now)}` : `SMS delivered to ${to}`;
    }
    case SmsDeliveryStatus.SENT:
      return `SMS sent to ${to} · waiting for the network's delivery report`;
    case SmsDeliveryStatus.FAILED:
      return `We could not deliver the SMS to ${to}`;
    default:
      return `Sending the SMS to ${to}…`;
  }
}
