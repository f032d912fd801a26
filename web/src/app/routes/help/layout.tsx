import { Outlet } from "react-router";
import { PublicShell } from "@/components/layout/public-shell";
import { LoadingBlock } from "@/components/ui/spinner";
import { useSession } from "@/features/auth/api/session";
import SignedInLayout from "../app/layout";

/**
 * /help is public (spec §1: the public pages include help; §2: the public footer links it), so
 * no guard sends a visitor to log in: a visitor reads it in the public shell, a signed-in
 * sender in the app's frame, where it is one of the sidebar's links. GetSession decides, as it
 * does for the guard; when it cannot be read (the backend down), help still shows, publicly:
 * help is what someone in trouble looks for.
 */
export default function HelpLayout() {
  const session = useSession();
  // Only the first answer is waited for. A visitor's failed read is read again whenever another
  // part of the page asks (Contact Us asks who is writing), and TanStack Query calls a query
  // that never had data "pending" again meanwhile: that must not swap the page for a spinner.
  if (session.dataUpdatedAt === 0 && session.errorUpdatedAt === 0) {
    return <LoadingBlock label="Loading..." className="min-h-dvh" />;
  }
  // A session that has just ended (Unauthenticated after all) leaves the page public too,
  // rather than sending the reader to log in.
  if (session.isSuccess) return <SignedInLayout />;
  return (
    <PublicShell>
      <div className="px-4 py-12 sm:px-6 md:py-16">
        <Outlet />
      </div>
    </PublicShell>
  );
}
