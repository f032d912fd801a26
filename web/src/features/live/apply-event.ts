import { create } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { createConnectQueryKey } from "@connectrpc/connect-query";
import type { QueryClient } from "@tanstack/react-query";
import {
  GetTransferResponseSchema,
  PaymentMethodsService,
  TransfersService,
} from "@/gen/thumela/bff/v1/bff_pb";
import type { WatchEventsResponse } from "@/gen/thumela/bff/v1/bff_pb";
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
      queryClient.setQueryData(
        createConnectQueryKey({
          schema: TransfersService.method.getTransfer,
          input: { id: transfer.id },
          transport,
          cardinality: "finite",
        }),
        create(GetTransferResponseSchema, { transfer }),
      );
      void queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: TransfersService.method.listTransfers, cardinality: undefined }),
      });
      void queryClient.invalidateQueries({
        queryKey: createConnectQueryKey({ schema: TransfersService.method.getLimits, cardinality: undefined }),
      });
      break;
    }
    default:
      break;
  }
}
