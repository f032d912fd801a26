import { useCallback, useState } from "react";

/**
 * The beta waitlists a user joined, kept in this browser's localStorage under a key that
 * includes the user id, so two people sharing a browser each see their own choices. The spec:
 * joining is local only, no call.
 */
export function waitlistStorageKey(userId: string): string {
  return `thumela_beta_waitlist:${userId}`;
}

export function readWaitlist(userId: string): string[] {
  try {
    const raw = window.localStorage.getItem(waitlistStorageKey(userId));
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(parsed) ? parsed.filter((value): value is string => typeof value === "string") : [];
  } catch {
    return []; // storage blocked or the value was damaged: start empty
  }
}

export function saveWaitlist(userId: string, featureIds: readonly string[]): void {
  try {
    window.localStorage.setItem(waitlistStorageKey(userId), JSON.stringify([...new Set(featureIds)]));
  } catch {
    // Not persisted (storage blocked); the joined state still shows for this visit.
  }
}

/** The joined feature ids for a user, and `join(id)`. */
export function useWaitlist(userId: string) {
  const [state, setState] = useState(() => ({ userId, joined: readWaitlist(userId) }));
  // Another user signed in on this tab: read theirs.
  const joined = state.userId === userId ? state.joined : readWaitlist(userId);
  if (state.userId !== userId) setState({ userId, joined });

  const join = useCallback(
    (featureId: string) => {
      const next = [...new Set([...readWaitlist(userId), featureId])];
      saveWaitlist(userId, next);
      setState({ userId, joined: next });
    },
    [userId],
  );
  return { joined, join };
}
