import { createContext, useContext } from "react";

/**
 * Whether the live event stream (features/live) is open. Screens that would otherwise poll
 * (the spec's 3 s / 5 s transfer status checks) poll only while it is 'reconnecting'.
 */
export type LiveStatus = "connected" | "reconnecting";

/** Outside the live provider nothing streams, so screens fall back to polling. */
export const LiveStatusContext = createContext<LiveStatus>("reconnecting");

export function useLiveStatus(): LiveStatus {
  return useContext(LiveStatusContext);
}
