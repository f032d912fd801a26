import { createConnectQueryKey, useMutation, useQuery } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { AuthService, SecurityService } from "@/gen/thumela/bff/v1/bff_pb";

const listSessions = SecurityService.method.listSessions;

/** The signed-in sessions, the current one first; refreshed when the tab regains focus. */
export function useSessions() {
  return useQuery(listSessions, {}, { refetchOnWindowFocus: true });
}

/** Reloads the sessions list (after something that revoked sessions: a password change). */
export function useInvalidateSessions() {
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries({ queryKey: createConnectQueryKey({ schema: listSessions, cardinality: undefined }) });
}

/** Lets the route guard re-check the session (after this browser was signed out). */
export function useRecheckSession() {
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries({
      queryKey: createConnectQueryKey({ schema: AuthService.method.getSession, cardinality: undefined }),
    });
}

export function useRevokeSession() {
  const invalidate = useInvalidateSessions();
  return useMutation(SecurityService.method.revokeSession, { onSettled: invalidate });
}

export function useRevokeOtherSessions() {
  const invalidate = useInvalidateSessions();
  return useMutation(SecurityService.method.revokeOtherSessions, { onSettled: invalidate });
}
