import { createConnectQueryKey, useTransport } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { ReactNode } from "react";
import { toast } from "sonner";
import { AuthService } from "@/gen/thumela/bff/v1/bff_pb";
import { LiveStatusContext, useLiveStatus } from "@/lib/live-status";
import type { LiveStatus } from "@/lib/live-status";
import { applyLiveEvent } from "./apply-event";
import { watchLiveEvents } from "./watch-events";

export { useLiveStatus };
export type { LiveStatus };

/**
 * Mounted once in the signed-in layout: opens this tab's one live event stream and applies
 * its events to the query cache (profile → session and profile data; payment methods → list
 * refetch; recipients, schedules, credit → their refetch; transfer → its GetTransfer data, list
 * and limits refetch; the voucher SMS's
 * delivery → the transfer's GetTransfer data), and toasts what the sender should hear of while
 * the app is open (the cash collected, a refund made). `useLiveStatus()` (in
 * lib/live-status, so any feature may read it) tells screens whether to poll meanwhile.
 * When the session ends the stream stops and the session is re-checked, so the route guard
 * sends the visitor to login.
 */
export function LiveEventsProvider({ children }: { children: ReactNode }) {
  const transport = useTransport();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<LiveStatus>("reconnecting");

  useEffect(() => {
    const controller = new AbortController();
    // The notices shown in this tab: a replayed or repeated event never shows one twice.
    const shown = new Set<string>();
    void watchLiveEvents({
      transport,
      signal: controller.signal,
      onStatus: setStatus,
      onEvent: (event) => {
        const notice = applyLiveEvent(queryClient, transport, event);
        if (notice && !shown.has(notice.id)) {
          shown.add(notice.id);
          (notice.tone === "warning" ? toast.warning : toast.success)(notice.title, { description: notice.description });
        }
      },
      onResync: () => void queryClient.invalidateQueries(),
      onUnauthenticated: () => {
        void queryClient.invalidateQueries({
          queryKey: createConnectQueryKey({ schema: AuthService.method.getSession, cardinality: undefined }),
        });
      },
    });
    return () => controller.abort();
  }, [transport, queryClient]);

  return <LiveStatusContext.Provider value={status}>{children}</LiveStatusContext.Provider>;
}
