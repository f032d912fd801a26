import { useQuery } from "@connectrpc/connect-query";
import { TransferStatus, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { centsToDecimal } from "@/lib/money";

export const RECENT_TRANSFERS_COUNT = 3;

/** The newest transfers for the dashboard (one request shared by its cards). */
export function useRecentTransfers() {
  return useQuery(TransfersService.method.listTransfers, { page: 1, pageSize: RECENT_TRANSFERS_COUNT });
}

export const STATUS_LABEL: Record<TransferStatus, string> = {
  [TransferStatus.UNSPECIFIED]: "Unknown",
  [TransferStatus.PENDING]: "Pending",
  [TransferStatus.PROCESSING]: "Processing",
  [TransferStatus.COMPLETED]: "Completed",
  [TransferStatus.FAILED]: "Failed",
};

/** /send-money prefilled with a past transfer's amount, recipient and phone. */
export function sendAgainPath(transfer: Transfer): string {
  const params = new URLSearchParams({
    amount: centsToDecimal(transfer.amountCents),
    recipient: transfer.recipientName,
    phone: transfer.recipientPhone,
  });
  return `/send-money?${params.toString()}`;
}
