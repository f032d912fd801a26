import { clone, create } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { createConnectQueryKey } from "@connectrpc/connect-query";
import type { QueryClient } from "@tanstack/react-query";
import {
  GetTransferResponseSchema,
  PaymentMethodsService,
  TransferSchema,
  TransfersService,
} from "@/gen/thumela/bff/v1/bff_pb";
import type { GetTransferResponse, SmsDelivery, WatchEventsResponse } from "@/gen/thumela/bff/v1/bff_pb";
import { storeProfile } from "@/lib/profile-cache";

/** Brings the react-query cache up to date with one live event. */
export function applyLiveEvent(queryClient: QueryClient, transport: Transport, response: WatchEventsResponse): void {
  const { event } = response;
  switch (event.case) {
    case "profileUpdated":
      if (event.value.profile) storeProfile(queryClient, transport, event.value.profile);
      break;
    case "paymentMethodsChanged":
      void queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: PaymentMethodsService.method.listPaymentMethods, cardinality: undefined }),
      });
      break;
    case "transferUpdated": {
      const transfer = event.value.transfer;
      if (!transfer) break;
      queryClient.setQueryData<GetTransferResponse>(transferKey(transport, transfer.id), (old) => {
        // A transfer's events do not carry its SMS's state (SmsDeliveryChanged does): keep it.
        const sms = transfer.smsDelivery ?? old?.transfer?.smsDelivery;
        const next = sms && !transfer.smsDelivery ? Object.assign(clone(TransferSchema, transfer), { smsDelivery: sms }) : transfer;
        return create(GetTransferResponseSchema, { transfer: next });
      });
      void queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: TransfersService.method.listTransfers, cardinality: undefined }),
      });
      void queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: TransfersService.method.getLimits, cardinality: undefined }),
      });
      break;
    }
    case "smsDeliveryChanged": {
      const { transferId, smsDelivery } = event.value;
      if (!transferId || !smsDelivery) break;
      const key = transferKey(transport, transferId);
      const cached = queryClient.getQueryData<GetTransferResponse>(key);
      if (!cached?.transfer) {
        // Not read yet (or being read): an open dialog's read will include it.
        void queryClient.invalidateQueries({ queryKey: key, exact: true });
        break;
      }
      if (olderThan(smsDelivery, cached.transfer.smsDelivery)) break;
      const transfer = Object.assign(clone(TransferSchema, cached.transfer), { smsDelivery });
      queryClient.setQueryData(key, create(GetTransferResponseSchema, { transfer }));
      break;
    }
    default:
      break;
  }
}

function transferKey(transport: Transport, id: string) {
  return createConnectQueryKey({ schema: TransfersService.method.getTransfer, input: { id }, transport, cardinality: "finite" });
}

/** Whether `next` reports an earlier moment than what the cache holds (a late, stale answer). */
function olderThan(next: SmsDelivery, held: SmsDelivery | undefined): boolean {
  if (!held?.updatedAt || !next.updatedAt) return false;
  const a = next.updatedAt;
  const b = held.updatedAt;
  return a.seconds < b.seconds || (a.seconds === b.seconds && a.nanos < b.nanos);
}
