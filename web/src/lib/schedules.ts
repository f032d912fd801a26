import { createConnectQueryKey, useMutation, useQuery } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { ScheduleFrequency, ScheduleState, SchedulesService } from "@/gen/thumela/bff/v1/bff_pb";
import { addDays, addMonths } from "@/lib/date";

/**
 * Recurring sends (SchedulesService). Shared by /recipients (the list, 'Schedule a send') and
 * the wizard's 'Repeat this send' (features do not import each other). The live stream's
 * schedules_changed invalidates the list.
 */
const service = SchedulesService.method;

export const FREQUENCY_LABEL: Record<ScheduleFrequency, string> = {
  [ScheduleFrequency.UNSPECIFIED]: "Unknown",
  [ScheduleFrequency.WEEKLY]: "Weekly",
  [ScheduleFrequency.MONTHLY]: "Monthly",
};

/** 'every week' / 'every month', for sentences. */
export const FREQUENCY_WORDS: Record<ScheduleFrequency, string> = {
  [ScheduleFrequency.UNSPECIFIED]: "",
  [ScheduleFrequency.WEEKLY]: "every week",
  [ScheduleFrequency.MONTHLY]: "every month",
};

export const STATE_LABEL: Record<ScheduleState, string> = {
  [ScheduleState.UNSPECIFIED]: "Unknown",
  [ScheduleState.ACTIVE]: "Active",
  [ScheduleState.PAUSED]: "Paused",
  [ScheduleState.ENDED]: "Ended",
};

/** The date one period after day: a week, or a month on the same day (clamped). */
export function nextPeriod(day: string, frequency: ScheduleFrequency): string {
  return frequency === ScheduleFrequency.MONTHLY ? addMonths(day, 1) : addDays(day, 7);
}

export function useSchedules() {
  return useQuery(service.listSchedules, {});
}

/** Every mutation lists the schedules again (the live event does too, for the other tabs). */
function useInvalidateSchedules() {
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries({
      queryKey: createConnectQueryKey({ schema: service.listSchedules, cardinality: undefined }),
    });
}

export function useCreateSchedule() {
  const invalidate = useInvalidateSchedules();
  return useMutation(service.createSchedule, { onSuccess: invalidate });
}

export function usePauseSchedule() {
  const invalidate = useInvalidateSchedules();
  return useMutation(service.pauseSchedule, { onSettled: invalidate });
}

export function useResumeSchedule() {
  const invalidate = useInvalidateSchedules();
  return useMutation(service.resumeSchedule, { onSettled: invalidate });
}

export function useDeleteSchedule() {
  const invalidate = useInvalidateSchedules();
  return useMutation(service.deleteSchedule, { onSettled: invalidate });
}
