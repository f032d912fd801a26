import { clone, create } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { createConnectQueryKey } from "@connectrpc/connect-query";
import type { QueryClient } from "@tanstack/react-query";
import { GetTransferResponseSchema, TransferSchema, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { GetTransferResponse, Transfer } from "@/gen/thumela/bff/v1/bff_pb";

/** The GetTransfer query of one transfer, which the details and the result panel read. */
export function transferQueryKey(transport: Transport, id: string) {
  return createConnectQueryKey({ schema: TransfersService.method.getTransfer, input: { id }, transport, cardinality: "finite" });
}

/**
 * The `dataUpdatedAt` of a GetTransfer query that holds a transfer the server was never asked
 * for: seeded by the live stream (or an action's answer), which does not carry the voucher SMS's
 * state. Such data is stale at once, so the details dialog reads the transfer when it opens,
 * and until it has, the dialog does not say "No delivery report yet" (smsStateUnread).
 */
export const NEVER_READ_AT = 0;

/**
 * Whether a GetTransfer query's transfer has a voucher whose SMS state was never read: its data
 * came from a live event (`dataUpdatedAt` is NEVER_READ_AT) and carries no SMS state. Its lack
 * of a delivery report says nothing about the SMS.
 */
export function smsStateUnread(transfer: Transfer | undefined, dataUpdatedAt: number): boolean {
  return Boolean(transfer?.voucher) && !transfer?.smsDelivery && dataUpdatedAt === NEVER_READ_AT;
}

/**
 * Puts a transfer the server sent (an action's answer, or the live stream's update) into its
 * GetTransfer query, keeping the voucher SMS's state the query already held (withKnownSms).
 * A transfer with a voucher that this tab never read (no GetTransfer data, or only data seeded
 * so), answered without its SMS's state, is stored as never read (NEVER_READ_AT): the first
 * live event of a transfer not in the cache used to seed it as read, and its dialog then said
 * "No delivery report yet" for a delivered SMS until a reload.
 */
export function storeTransfer(queryClient: QueryClient, transport: Transport, transfer: Transfer): void {
  const key = transferQueryKey(transport, transfer.id);
  const held = queryClient.getQueryState<GetTransferResponse>(key);
  const known = held?.data?.transfer;
  const next = withKnownSms(transfer, known);
  const neverRead = !known || held?.dataUpdatedAt === NEVER_READ_AT;
  queryClient.setQueryData<GetTransferResponse>(
    key,
    create(GetTransferResponseSchema, { transfer: next }),
    neverRead && next.voucher && !next.smsDelivery ? { updatedAt: NEVER_READ_AT } : undefined,
  );
}

/**
 * `next` with the voucher SMS's state this tab already knew (`known`), when `next` carries none.
 * Only GetTransfer and SmsDeliveryChanged carry that state: a transfer's live events and the
 * answers of CancelTransfer, ResendVoucher and ChangeRecipientPhone do not, and writing them
 * over the cached transfer made the open dialog read "No delivery report yet" for an SMS that
 * had been delivered. A re-issued voucher (a new number) goes out in a new SMS, so the old
 * state is dropped then.
 */
export function withKnownSms(next: Transfer, known: Transfer | undefined): Transfer {
  if (next.smsDelivery || !known?.smsDelivery || known.voucher?.number !== next.voucher?.number) return next;
  return Object.assign(clone(TransferSchema, next), { smsDelivery: known.smsDelivery });
}
