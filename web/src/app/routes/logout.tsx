import { Code } from "@connectrpc/connect";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Link, Navigate, useLocation, useNavigate } from "react-router";
import { toast } from "sonner";
import { Button, buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { LoadingBlock } from "@/components/ui/spinner";
import { useSignOut } from "@/features/auth/api/sign-out";
import { resetAnalytics } from "@/lib/analytics";
import { hasCode } from "@/lib/errors";
import { hasSessionHint } from "@/lib/session-hint";

/**
 * Signs out: → /login on success, → /dashboard on failure. Reached from inside the app (the Log
 * Out links) it signs out at once. Reached directly (a typed address, a reload, or a link on
 * another site, which a browser follows with the session's cookie), it asks first: any page on
 * the web could otherwise sign a user out with a link.
 */
export default function LogoutPage() {
  // The router gives the first entry of a visit the key "default": nothing of this app led here.
  const direct = useLocation().key === "default";
  const [confirmed, setConfirmed] = useState(false);
  // A visitor who is not signed in has nothing to log out of: no question, no "Logged out".
  if (direct && !confirmed && !hasSessionHint()) return <Navigate to="/login" replace />;
  if (direct && !confirmed) return <ConfirmLogout onConfirm={() => setConfirmed(true)} />;
  return <SigningOut />;
}

function ConfirmLogout({ onConfirm }: { onConfirm: () => void }) {
  return (
    <main className="flex min-h-dvh items-center justify-center p-4">
      <Card className="w-full max-w-sm p-6 text-center">
        <h1 className="text-xl font-semibold text-slate-900 dark:text-white">Log out of Thumela?</h1>
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-300">You will need your password to log in again.</p>
        <div className="mt-6 flex justify-center gap-3">
          <Link to="/dashboard" className={buttonClasses("outline")}>
            Cancel
          </Link>
          <Button onClick={onConfirm}>Log Out</Button>
        </div>
      </Card>
    </main>
  );
}

function SigningOut() {
  const signOut = useSignOut();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return; // once, even when React runs effects twice in development
    started.current = true;
    signOut.mutateAsync({}).then(
      () => signedOut(),
      (error: unknown) => {
        // No session any more is what signing out wants anyway.
        if (hasCode(error, Code.Unauthenticated)) return signedOut();
        toast.error("Logout failed", { description: "Something went wrong. Please try again." });
        navigate("/dashboard", { replace: true });
      },
    );

    function signedOut() {
      toast.success("Logged out", { description: "You have been successfully logged out." });
      queryClient.clear();
      void resetAnalytics();
      navigate("/login", { replace: true });
    }
  }, [signOut, queryClient, navigate]);

  return <LoadingBlock label="Signing you out..." className="min-h-dvh" />;
}
