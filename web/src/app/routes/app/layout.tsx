import { Outlet } from "react-router";
import { AppShell } from "@/components/layout/app-shell";
import { RequireSession } from "@/features/auth/components/require-session";

/** Every signed-in screen: the session guard, then the sidebar/top-bar frame. */
export default function SignedInLayout() {
  return (
    <RequireSession>
      {({ user, profile }) => (
        <AppShell user={{ firstName: profile?.firstName, lastName: profile?.lastName, email: user?.email }}>
          <Outlet />
        </AppShell>
      )}
    </RequireSession>
  );
}
