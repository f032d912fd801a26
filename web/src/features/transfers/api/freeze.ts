import { createConnectQueryKey, useMutation, useQuery } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { useRememberTransfer } from "./transfers";

/**
 * The sender's vouchers awaiting collection, as GetLimits counts them (the same figures as the
 * limits meter). The live stream invalidates GetLimits on every transfer change, so the count
 * follows a collection, a cancel or an expiry.
 */
export function useUncollected() {
  const limits = useQuery(TransfersService.method.getLimits, {});
  return {
    loading: limits.isPending,
    error: limits.isError,
    vouchers: limits.data?.uncollectedVouchers ?? 0,
    cents: limits.data?.uncollectedCents ?? 0n,
  };
}

/**
 * 'Freeze my vouchers': cancels every voucher awaiting collection. The transfers it cancelled are
 * put in the cache at once (the live stream brings the same changes a moment later), and the
 * count is read again.
 */
export function useFreezeVouchers() {
  const freeze = useMutation(TransfersService.method.freezeVouchers);
  const remember = useRememberTransfer();
  const queryClient = useQueryClient();
  const run = async (): Promise<Transfer[]> => {
    const { cancelled } = await freeze.mutateAsync({});
    for (const transfer of cancelled) remember(transfer);
    void queryClient.invalidateQueries({
      queryKey: createConnectQueryKey({ schema: TransfersService.method.getLimits, cardinality: undefined }),
    });
    return cancelled;
  };
  return { run, pending: freeze.isPending };
}
