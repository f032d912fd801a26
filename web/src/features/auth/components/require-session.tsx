import { Code } from "@connectrpc/connect";
import type { ReactNode } from "react";
import { Navigate, useLocation } from "react-router";
import { Button } from "@/components/ui/button";
import { LoadingBlock } from "@/components/ui/spinner";
import type { GetSessionResponse } from "@/gen/thumela/bff/v1/bff_pb";
import { hasCode } from "@/lib/errors";
import { useSession } from "../api/session";
import { loginPathFor } from "../lib/safe-redirect";

/**
 * Renders its children only for a signed-in visitor. Signed out (GetSession answers
 * Unauthenticated) → /login?redirect=<the asked path>, so sign-in brings them back.
 */
export function RequireSession({ children }: { children: (session: GetSessionResponse) => ReactNode }) {
  const location = useLocation();
  const session = useSession();

  if (session.isPending) {
    return <LoadingBlock label="Checking your session..." className="min-h-dvh" />;
  }
  if (session.isError) {
    if (hasCode(session.error, Code.Unauthenticated)) {
      return <Navigate to={loginPathFor(location.pathname + location.search)} replace />;
    }
    return <SessionUnavailable retrying={session.isFetching} onRetry={() => void session.refetch()} />;
  }
  return children(session.data);
}

function SessionUnavailable({ retrying, onRetry }: { retrying: boolean; onRetry: () => void }) {
  return (
    <div role="alert" className="flex min-h-dvh flex-col items-center justify-center gap-4 px-4 text-center">
      <h1 className="text-xl font-semibold">We can't reach Thumela right now</h1>
      <p className="max-w-md text-sm text-slate-600 dark:text-slate-400">
        Check your internet connection and try again. Your money and details are safe.
      </p>
      <Button onClick={onRetry} busy={retrying}>
        Try again
      </Button>
    </div>
  );
}
