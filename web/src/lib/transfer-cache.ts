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
 * Puts a transfer the server sent (an action's answer, or the live stream's update) into its
 * GetTransfer query, keeping the voucher SMS's state the query already held (withKnownSms).
 */
export function storeTransfer(queryClient: QueryClient, transport: Transport, transfer: Transfer): void {
  queryClient.setQueryData<GetTransferResponse>(transferQueryKey(transport, transfer.id), (old) =>
    create(GetTransferResponseSchema, { transfer: withKnownSms(transfer, old?.transfer) }),
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
