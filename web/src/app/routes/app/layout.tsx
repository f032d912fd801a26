import { Outlet } from "react-router";
import { AppShell } from "@/components/layout/app-shell";
import { RequireSession } from "@/features/auth/components/require-session";
import { LiveEventsProvider } from "@/features/live/live-events-provider";

/** Every signed-in screen: the session guard, the live event stream, then the sidebar/top-bar frame. */
export default function SignedInLayout() {
  return (
    <RequireSession>
      {({ user, profile }) => (
        <LiveEventsProvider>
          <AppShell user={{ firstName: profile?.firstName, lastName: profile?.lastName, email: user?.email }}>
            <Outlet />
          </AppShell>
        </LiveEventsProvider>
      )}
    </RequireSession>
  );
}
