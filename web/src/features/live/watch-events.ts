import { Code, createClient } from "@connectrpc/connect";
import type { Transport } from "@connectrpc/connect";
import { EventsService } from "@/gen/thumela/bff/v1/bff_pb";
import type { WatchEventsResponse } from "@/gen/thumela/bff/v1/bff_pb";
import { hasCode } from "@/lib/errors";
import type { LiveStatus } from "@/lib/live-status";

/** The spec's realtime reconnect delays: 1 s, 2 s, 5 s, then every 10 s. */
export const RECONNECT_DELAYS_MS = [1_000, 2_000, 5_000, 10_000] as const;

/**
 * The server sends a heartbeat every 30 s; a stream silent for this long is presumed dead
 * (a proxy or a sleeping laptop dropped it without closing) and is opened again.
 */
export const SILENCE_TIMEOUT_MS = 75_000;

export function reconnectDelay(failures: number): number {
  return RECONNECT_DELAYS_MS[Math.min(failures, RECONNECT_DELAYS_MS.length - 1)];
}

export interface WatchOptions {
  transport: Transport;
  signal: AbortSignal;
  /** Every event except heartbeats, in order. */
  onEvent: (event: WatchEventsResponse) => void;
  onStatus: (status: LiveStatus) => void;
  /** The session ended: the stream stops for good. */
  onUnauthenticated: () => void;
  /** Events may have been missed (the cursor was refused): cached data should be re-read. */
  onResync?: () => void;
}

/**
 * Keeps one EventsService.WatchEvents stream open until `signal` aborts or the session ends.
 * When the stream breaks it waits (RECONNECT_DELAYS_MS), then reopens it with the cursor of
 * the last event seen, so the server replays what was missed.
 */
export async function watchLiveEvents({ transport, signal, onEvent, onStatus, onUnauthenticated, onResync }: WatchOptions): Promise<void> {
  const client = createClient(EventsService, transport);
  let cursor = "";
  let failures = 0;

  while (!signal.aborted) {
    const attempt = new AbortController();
    const stop = () => attempt.abort();
    signal.addEventListener("abort", stop);
    let silence: ReturnType<typeof setTimeout> | undefined;
    const expectMore = () => {
      clearTimeout(silence);
      silence = setTimeout(stop, SILENCE_TIMEOUT_MS);
    };
    try {
      expectMore();
      // The server's first message (a heartbeat) tells that the stream is open.
      const stream = client.watchEvents({ resumeAfter: cursor }, { signal: attempt.signal });
      for await (const response of stream) {
        expectMore();
        failures = 0;
        onStatus("connected");
        if (response.cursor) cursor = response.cursor;
        if (response.event.case === undefined || response.event.case === "heartbeat") continue;
        try {
          onEvent(response);
        } catch (error) {
          console.error("Could not apply a live event", error);
        }
      }
      // The server closed the stream (e.g. a deploy): open it again.
    } catch (error) {
      if (signal.aborted) return;
      if (hasCode(error, Code.Unauthenticated)) {
        onStatus("reconnecting");
        onUnauthenticated();
        return;
      }
      if (hasCode(error, Code.InvalidArgument) && cursor) {
        // The server no longer knows our cursor: start from now and re-read what is shown.
        cursor = "";
        onResync?.();
      }
    } finally {
      clearTimeout(silence);
      signal.removeEventListener("abort", stop);
    }
    if (signal.aborted) return;
    onStatus("reconnecting");
    await pause(reconnectDelay(failures), signal);
    failures += 1;
  }
}

/** Waits `ms`, less when aborted or when the browser comes back online. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      window.removeEventListener("online", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
    window.addEventListener("online", done);
  });
}
