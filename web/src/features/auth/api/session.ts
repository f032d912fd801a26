import { create } from "@bufbuild/protobuf";
import { createConnectQueryKey, useTransport } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import type { Profile, User } from "@/gen/thumela/bff/v1/bff_pb";
import { AuthService, GetSessionResponseSchema } from "@/gen/thumela/bff/v1/bff_pb";
import { useSessionQuery } from "@/lib/session-query";
import { sessionQueryFilter } from "./session-key";

const getSession = AuthService.method.getSession;

export { sessionQueryFilter };

/**
 * The signed-in user and profile, or a ConnectError with code Unauthenticated when signed out;
 * a browser without the BFF's signed-in hint is told so without a request (lib/session-query).
 */
export function useSession() {
  return useSessionQuery({ staleTime: 60_000 });
}

/**
 * Puts the user and profile that SignIn/VerifyEmail answered into the session cache, so the
 * signed-in screens render at once instead of asking again.
 */
export function useStoreSession() {
  const queryClient = useQueryClient();
  const transport = useTransport();
  return useCallback(
    async (session: { user?: User; profile?: Profile }) => {
      // Whatever was cached before (e.g. the failed read while signed out) is stale now…
      await queryClient.invalidateQueries({ ...sessionQueryFilter, refetchType: "none" });
      // …and the answer just received is the fresh session.
      const queryKey = createConnectQueryKey({ schema: getSession, input: {}, transport, cardinality: "finite" });
      queryClient.setQueryData(queryKey, create(GetSessionResponseSchema, session));
    },
    [queryClient, transport],
  );
}
