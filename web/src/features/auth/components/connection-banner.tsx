import { WifiOff } from "lucide-react";
import { Button } from "@/components/ui/button";
import { errorMessage } from "@/lib/errors";
import { useConnectionCheck } from "../api/connection";

const UNREACHABLE = "We can't reach Thumela right now. Check your internet connection and try again.";

/** Shown above the login form while the backend cannot be reached; hidden when connected. */
export function ConnectionBanner() {
  const check = useConnectionCheck();
  const failed = check.isError || check.data?.ok === false;
  if (!failed) return null;
  const message = check.isError ? errorMessage(check.error, UNREACHABLE) : UNREACHABLE;
  return (
    <div
      role="alert"
      className="mb-6 flex flex-col gap-3 rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-amber-900 sm:flex-row sm:items-center dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-100"
    >
      <WifiOff aria-hidden="true" className="size-5 shrink-0" />
      <p className="flex-1">
        <span className="font-semibold">Connection issue:</span> {message}
      </p>
      <Button variant="outline" size="sm" busy={check.isFetching} onClick={() => void check.refetch()}>
        Retry Connection
      </Button>
    </div>
  );
}
