import { Code } from "@connectrpc/connect";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useNavigate } from "react-router";
import { toast } from "sonner";
import { LoadingBlock } from "@/components/ui/spinner";
import { useSignOut } from "@/features/auth/api/sign-out";
import { resetAnalytics } from "@/lib/analytics";
import { hasCode } from "@/lib/errors";

/** Signs out at once: → /login on success, → /dashboard on failure. */
export default function LogoutPage() {
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
