import { createConnectQueryKey, useMutation, useQuery } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { SchedulesService, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
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

/** What a freeze did: the transfers whose vouchers it cancelled, and the schedules it paused. */
export interface FreezeResult {
  cancelled: Transfer[];
  pausedSchedules: number;
}

/**
 * 'Freeze my vouchers': pauses the active scheduled sends and cancels every voucher awaiting
 * collection. The transfers it cancelled are put in the cache at once (the live stream brings the
 * same changes a moment later), and the count and the schedules are read again.
 */
export function useFreezeVouchers() {
  const freeze = useMutation(TransfersService.method.freezeVouchers);
  const remember = useRememberTransfer();
  const queryClient = useQueryClient();
  const run = async (): Promise<FreezeResult> => {
    const { cancelled, pausedSchedules } = await freeze.mutateAsync({});
    for (const transfer of cancelled) remember(transfer);
    void queryClient.invalidateQueries({
      queryKey: createConnectQueryKey({ schema: TransfersService.method.getLimits, cardinality: undefined }),
    });
    void queryClient.invalidateQueries({
      queryKey: createConnectQueryKey({ schema: SchedulesService.method.listSchedules, cardinality: undefined }),
    });
    return { cancelled, pausedSchedules };
  };
  return { run, pending: freeze.isPending };
}
