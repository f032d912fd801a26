import { Code } from "@connectrpc/connect";
import { CircleHelp, Monitor, Smartphone, Tablet } from "lucide-react";
import type { LucideIcon } from "lucide-react";
import { AlertDialog } from "radix-ui";
import { useState } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { restoreFocus } from "@/components/ui/dialog";
import { Skeleton } from "@/components/ui/skeleton";
import type { SessionInfo } from "@/gen/thumela/bff/v1/bff_pb";
import { toDate } from "@/lib/date";
import { errorMessage, hasCode } from "@/lib/errors";
import { useRecheckSession, useRevokeOtherSessions, useRevokeSession, useSessions } from "../api/sessions";

const SIGN_OUT_ALL_ID = "sign-out-other-sessions";
// The spec's words for a sign-out that failed without a message of its own ('Sign out failed').
const SIGN_OUT_FALLBACK = "Unable to sign out. Please try again.";

const timeFormat = new Intl.DateTimeFormat("en-ZA", {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  timeZone: "Africa/Johannesburg",
});
const relative = new Intl.RelativeTimeFormat("en-ZA", { numeric: "auto" });

function formatTime(value: Date | undefined): string {
  return value ? timeFormat.format(value) : "";
}

/** "just now", "5 minutes ago", "3 hours ago"; older than a day, the date and time. */
export function lastSeen(value: Date | undefined, now: Date = new Date()): string {
  if (!value) return "";
  const minutes = Math.round((now.getTime() - value.getTime()) / 60_000);
  if (minutes < 2) return "just now";
  if (minutes < 60) return relative.format(-minutes, "minute");
  if (minutes < 24 * 60) return relative.format(-Math.round(minutes / 60), "hour");
  return formatTime(value);
}

/** "Chrome on Windows", or what is known of it. */
export function sessionName(s: SessionInfo): string {
  if (s.browser && s.os) return `${s.browser} on ${s.os}`;
  return s.browser || s.os || "Unknown device";
}

const icons: Record<string, { icon: LucideIcon; label: string }> = {
  desktop: { icon: Monitor, label: "Computer" },
  mobile: { icon: Smartphone, label: "Phone" },
  tablet: { icon: Tablet, label: "Tablet" },
};

const methods: Record<string, string> = {
  password: "with your password",
  passkey: "with a passkey",
  email_code: "with an email code",
};

/**
 * Account -> Security: every browser signed in to the account (device, browser, when it signed
 * in and was last seen, which one is this one), 'Sign out' per other session and 'Sign out all
 * other sessions' (confirmed). A session signed out here stops working at once everywhere.
 */
export function SessionsSection() {
  const sessions = useSessions();
  const [confirming, setConfirming] = useState(false);
  const others = sessions.data?.sessions.filter((s) => !s.current) ?? [];

  return (
    <Card className="p-6" aria-labelledby="sessions-heading">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 id="sessions-heading" className="text-lg font-semibold">
            Signed-in sessions
          </h2>
          <p className="mt-1 max-w-prose text-sm text-slate-600 dark:text-slate-400">
            These are the browsers and devices signed in to your account. If you don't recognise one, sign it out and
            change your password.
          </p>
        </div>
        {others.length > 0 && (
          <Button id={SIGN_OUT_ALL_ID} variant="outline" onClick={() => setConfirming(true)}>
            Sign out all other sessions
          </Button>
        )}
      </div>
      <div className="mt-5">
        {sessions.isPending ? (
          <div role="status" aria-label="Loading your sessions..." className="space-y-3">
            {[0, 1].map((row) => (
              <Skeleton key={row} className="h-14 w-full" />
            ))}
          </div>
        ) : sessions.isError ? (
          <div role="alert" className="space-y-3 rounded-lg bg-slate-50 p-4 dark:bg-slate-800/60">
            <p className="font-medium">We couldn't load your sessions.</p>
            <Button variant="outline" size="sm" busy={sessions.isFetching} onClick={() => void sessions.refetch()}>
              Try again
            </Button>
          </div>
        ) : sessions.data.sessions.length === 0 ? (
          <p className="rounded-lg bg-slate-50 p-4 text-sm text-slate-600 dark:bg-slate-800/60 dark:text-slate-400">
            No signed-in sessions to show.
          </p>
        ) : (
          <>
            <ul aria-label="Your signed-in sessions" className="divide-y divide-slate-200 dark:divide-slate-800">
              {sessions.data.sessions.map((s) => (
                <SessionRow key={s.id} session={s} />
              ))}
            </ul>
            {others.length === 0 && (
              <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">You're not signed in anywhere else.</p>
            )}
          </>
        )}
      </div>
      <SignOutOthersDialog open={confirming} count={others.length} onClose={() => setConfirming(false)} />
    </Card>
  );
}

function SessionRow({ session }: { session: SessionInfo }) {
  const revoke = useRevokeSession();
  const recheck = useRecheckSession();
  const name = sessionName(session);
  const { icon: Icon, label } = icons[session.deviceType] ?? { icon: CircleHelp, label: "Unknown device type" };

  const onSignOut = async () => {
    try {
      await revoke.mutateAsync({ sessionId: session.id });
      toast.success("Session signed out", { description: `${name} is no longer signed in.` });
    } catch (error) {
      if (hasCode(error, Code.NotFound)) {
        // Already gone (it expired, or was signed out elsewhere): the list reloads without it.
        toast.success("Session signed out", { description: `${name} is no longer signed in.` });
        return;
      }
      toast.error("Sign out failed", { description: errorMessage(error, SIGN_OUT_FALLBACK) });
      if (hasCode(error, Code.Unauthenticated)) void recheck();
    }
  };

  return (
    <li className="flex flex-wrap items-center justify-between gap-3 py-3" data-session-id={session.id}>
      <div className="flex min-w-0 items-center gap-3">
        <Icon role="img" aria-label={label} className="size-5 shrink-0 text-slate-500" />
        <div className="min-w-0">
          <p className="flex flex-wrap items-center gap-2 font-medium">
            <span className="truncate">{name}</span>
            {session.current && <Badge>This device</Badge>}
          </p>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Signed in {formatTime(toDate(session.createdAt))}
            {methods[session.method] ? ` ${methods[session.method]}` : ""}
            <span aria-hidden="true"> · </span>
            <span className="sr-only">, </span>
            {session.current ? "Active now" : `Last seen ${lastSeen(toDate(session.lastSeenAt))}`}
          </p>
        </div>
      </div>
      {!session.current && (
        <Button
          variant="ghost"
          size="sm"
          aria-label={`Sign out ${name}`}
          busy={revoke.isPending}
          disabled={revoke.isPending}
          onClick={() => void onSignOut()}
        >
          {revoke.isPending ? "Signing out..." : "Sign out"}
        </Button>
      )}
    </li>
  );
}

function SignOutOthersDialog({ open, count, onClose }: { open: boolean; count: number; onClose: () => void }) {
  const revokeOthers = useRevokeOtherSessions();
  const recheck = useRecheckSession();

  const onConfirm = async () => {
    try {
      const res = await revokeOthers.mutateAsync({});
      const n = res.revoked;
      toast.success("Other sessions signed out", {
        description:
          n === 1 ? "1 other session is no longer signed in." : `${n} other sessions are no longer signed in.`,
      });
    } catch (error) {
      toast.error("Sign out failed", { description: errorMessage(error, SIGN_OUT_FALLBACK) });
      if (hasCode(error, Code.Unauthenticated)) void recheck();
    }
    onClose();
  };

  return (
    <AlertDialog.Root open={open} onOpenChange={(next) => !next && !revokeOthers.isPending && onClose()}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-slate-950/50" />
        <AlertDialog.Content
          onCloseAutoFocus={(event) => restoreFocus(event, document.getElementById(SIGN_OUT_ALL_ID) ?? document.getElementById("sessions-heading"))}
          className="fixed left-1/2 top-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-xl border border-slate-200 bg-white p-6 shadow-xl dark:border-slate-800 dark:bg-slate-900"
        >
          <AlertDialog.Title className="text-lg font-semibold">Sign out all other sessions?</AlertDialog.Title>
          <AlertDialog.Description className="mt-2 text-sm text-slate-600 dark:text-slate-400">
            {count === 1 ? "1 other browser or device" : `${count} other browsers and devices`} will be signed out at
            once and will need your password to sign in again. You'll stay signed in here.
          </AlertDialog.Description>
          <div className="mt-6 flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
            <AlertDialog.Cancel asChild>
              <Button variant="outline" disabled={revokeOthers.isPending}>
                Cancel
              </Button>
            </AlertDialog.Cancel>
            <Button variant="destructive" busy={revokeOthers.isPending} onClick={() => void onConfirm()}>
              {revokeOthers.isPending ? "Signing out..." : "Sign out all"}
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
