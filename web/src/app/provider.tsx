import type { Transport } from "@connectrpc/connect";
import { TransportProvider } from "@connectrpc/connect-query";
import { QueryClientProvider, partialMatchKey } from "@tanstack/react-query";
import type { QueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import type { ReactNode } from "react";
import { Toaster } from "sonner";
import { ToastFocusBoundary } from "@/components/ui/toast-focus-boundary";
import { sessionQueryFilter } from "@/features/auth/api/session-key";
import { createQueryClient } from "@/lib/query-client";
import { ServiceOutage, ServiceOutageProvider, reportingOutages } from "@/lib/service-outage";
import { ThemeProvider, useTheme } from "@/lib/theme";
import { useToastPlacement } from "@/lib/toast-position";
import { transport as browserTransport } from "@/lib/transport";

/** The spec's toast display time. */
export const TOAST_DURATION_MS = 4000;

interface AppProviderProps {
  children: ReactNode;
  /** Tests pass a fake transport; the app uses the one created once in lib/transport. */
  transport?: Transport;
  queryClient?: QueryClient;
}

export function AppProvider({ children, transport = browserTransport, queryClient }: AppProviderProps) {
  const [client] = useState(() => queryClient ?? createAppQueryClient());
  // Every call goes through one transport, so every answer tells whether the payment system
  // is reachable (the signed-in frame's banner shows it).
  const [outage] = useState(() => new ServiceOutage());
  const reporting = useMemo(() => reportingOutages(transport, outage), [transport, outage]);
  return (
    <ThemeProvider>
      <ServiceOutageProvider outage={outage}>
        <TransportProvider transport={reporting}>
          <QueryClientProvider client={client}>
            {children}
            <ThemedToaster />
          </QueryClientProvider>
        </TransportProvider>
      </ServiceOutageProvider>
    </ThemeProvider>
  );
}

/**
 * When any call answers Unauthenticated (the session expired or was revoked elsewhere), the
 * cached session is marked stale: the route guard asks again and sends the visitor to login.
 */
export function createAppQueryClient(options: { retry?: boolean } = {}): QueryClient {
  return createQueryClient({
    ...options,
    onUnauthenticated: (client, queryKey) => {
      if (!partialMatchKey(queryKey, sessionQueryFilter.queryKey)) {
        void client.invalidateQueries(sessionQueryFilter);
      }
    },
  });
}

/**
 * Toasts at the bottom right on a wide screen. The top belongs to the header, whose theme toggle,
 * account menu and sign-out a toast covered for its four seconds (longer while the pointer rests
 * on it: sonner then keeps it open), and to the outage banner under it with its Dismiss at the
 * right, which the failure that raises it usually toasts about at the same moment. What a toast
 * may cover at the bottom scrolls; the header and the banner are sticky and do not. Below 768 px
 * the bottom holds the next action under the thumb (the result panel's buttons, a dialog's), so
 * toasts show at the top, under the header (useToastPlacement). The live region is sonner's own,
 * wherever the toasts show.
 */
function ThemedToaster() {
  const { resolved } = useTheme();
  const { position, top } = useToastPlacement();
  const offset = top ? { top } : undefined;
  return (
    <ToastFocusBoundary>
      <Toaster
        theme={resolved}
        duration={TOAST_DURATION_MS}
        position={position}
        offset={offset}
        mobileOffset={offset}
        richColors
        closeButton
      />
    </ToastFocusBoundary>
  );
}
