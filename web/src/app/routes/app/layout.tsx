import { Outlet, useMatches } from "react-router";
import { AppShell } from "@/components/layout/app-shell";
import { PublicShell } from "@/components/layout/public-shell";
import { LoadingBlock } from "@/components/ui/spinner";
import { useSession } from "@/features/auth/api/session";
import { RequireSession } from "@/features/auth/components/require-session";
import { LiveEventsProvider } from "@/features/live/live-events-provider";
import type { RouteHandle } from "../root";

/**
 * Every screen of the app's frame: the signed-in screens and /help, under one layout route so
 * that moving between them keeps the frame (the sidebar, the top bar, the live event stream and
 * the keyboard focus on the link just followed). With /help under a layout of its own, every
 * step between it and another sidebar page mounted a new frame: the focus fell to the page's
 * body and the live stream was closed and opened again.
 *
 * /help is public (spec §1: the public pages include help; §2: the public footer links it), so
 * no guard sends a visitor to log in: a visitor reads it in the public shell, a signed-in
 * sender in the app's frame, where it is one of the sidebar's links. GetSession decides, as it
 * does for the guard; when it cannot be read (the backend down), help still shows, publicly:
 * help is what someone in trouble looks for.
 */
export default function AppLayout() {
  const session = useSession();
  const openToVisitors = useMatches().some((match) => (match.handle as RouteHandle | undefined)?.openToVisitors);
  if (openToVisitors) {
    // Only the first answer is waited for. A visitor's failed read is read again whenever another
    // part of the page asks (Contact Us asks who is writing), and TanStack Query calls a query
    // that never had data "pending" again meanwhile: that must not swap the page for a spinner.
    if (session.dataUpdatedAt === 0 && session.errorUpdatedAt === 0) {
      return <LoadingBlock label="Loading..." className="min-h-dvh" />;
    }
    // A session that has just ended (Unauthenticated after all) leaves the page public too,
    // rather than sending the reader to log in.
    if (!session.isSuccess) {
      return (
        <PublicShell>
          <div className="px-4 py-12 sm:px-6 md:py-16">
            <Outlet />
          </div>
        </PublicShell>
      );
    }
  }
  // The same element in the same place for every page of the frame, /help included: React keeps it.
  return <SignedInFrame />;
}

/** The session guard, the live event stream, then the sidebar/top-bar frame. */
function SignedInFrame() {
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
