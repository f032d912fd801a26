import { Code, ConnectError } from "@connectrpc/connect";
import { QueryCache, QueryClient } from "@tanstack/react-query";
import type { QueryKey } from "@tanstack/react-query";

// Answers that another try cannot change: retrying them only delays what the user sees.
const FINAL_CODES = new Set([
  Code.Unauthenticated,
  Code.PermissionDenied,
  Code.NotFound,
  Code.InvalidArgument,
  Code.FailedPrecondition,
  Code.AlreadyExists,
  Code.ResourceExhausted,
]);

export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ConnectError && FINAL_CODES.has(error.code)) return false;
  return failureCount < 2;
}

interface QueryClientOptions {
  /** false in tests, so a failure shows at once. */
  retry?: boolean;
  /** Called when a query answers Unauthenticated (the session ended). */
  onUnauthenticated?: (client: QueryClient, queryKey: QueryKey) => void;
}

export function createQueryClient({ retry = true, onUnauthenticated }: QueryClientOptions = {}): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (error instanceof ConnectError && error.code === Code.Unauthenticated) {
          onUnauthenticated?.(client, query.queryKey);
        }
      },
    }),
    defaultOptions: {
      queries: { retry: retry ? shouldRetry : false, staleTime: 30_000, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
  return client;
}
