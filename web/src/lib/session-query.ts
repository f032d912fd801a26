import { Code, ConnectError } from "@connectrpc/connect";
import { createQueryOptions, useTransport } from "@connectrpc/connect-query";
import { useQuery } from "@tanstack/react-query";
import type { GetSessionResponse } from "@/gen/thumela/bff/v1/bff_pb";
import { AuthService } from "@/gen/thumela/bff/v1/bff_pb";
import { hasSessionHint } from "./session-hint";

const getSession = AuthService.method.getSession;

/** The BFF's words for a call without a session (bff/internal/rpcerr: MsgUnauthenticated). */
const SIGNED_OUT_MESSAGE = "You must be logged in to perform this action";

interface SessionQueryOptions {
  staleTime?: number;
  retry?: boolean;
}

/**
 * GetSession, asked only when the browser holds the signed-in hint (./session-hint). Without it
 * the answer is the one the BFF would give a visitor, Unauthenticated, made here without a
 * request: every reader of the session (the route guard, /help's frame, the support forms, the
 * profile cache) treats the visitor as signed out as before. The hint is read at each fetch,
 * not once, so a sign-in or sign-out in this or another tab is seen on the next one.
 *
 * The query key is connect-query's own for GetSession, so what SignIn and VerifyEmail store
 * (useStoreSession) and every invalidation by that key reach this query.
 */
export function useSessionQuery(options: SessionQueryOptions = {}) {
  const transport = useTransport();
  const { queryFn: askServer, ...query } = createQueryOptions(getSession, {}, { transport });
  return useQuery<GetSessionResponse, ConnectError, GetSessionResponse, typeof query.queryKey>({
    ...query,
    queryFn: (context) =>
      hasSessionHint() ? askServer(context) : Promise.reject(new ConnectError(SIGNED_OUT_MESSAGE, Code.Unauthenticated)),
    ...options,
  });
}
