import { Code, ConnectError, createRouterTransport } from "@connectrpc/connect";
import { afterEach, describe, expect, it, vi } from "vitest";
import { EventsService } from "@/gen/thumela/bff/v1/bff_pb";
import type { WatchEventsResponse } from "@/gen/thumela/bff/v1/bff_pb";
import type { LiveStatus } from "@/lib/live-status";
import { liveFeed } from "@/test/live-feed";
import { RECONNECT_DELAYS_MS, reconnectDelay, watchLiveEvents } from "./watch-events";

afterEach(() => {
  vi.useRealTimers();
});

function watch(transport: ReturnType<typeof createRouterTransport>) {
  const controller = new AbortController();
  const events: WatchEventsResponse[] = [];
  const statuses: LiveStatus[] = [];
  const onUnauthenticated = vi.fn();
  const done = watchLiveEvents({
    transport,
    signal: controller.signal,
    onEvent: (event) => events.push(event),
    onStatus: (status) => statuses.push(status),
    onUnauthenticated,
  });
  return { controller, events, statuses, onUnauthenticated, done };
}

describe("watchLiveEvents", () => {
  it("uses the spec's reconnect delays: 1 s, 2 s, 5 s, then 10 s", () => {
    expect(RECONNECT_DELAYS_MS).toEqual([1000, 2000, 5000, 10000]);
    expect([0, 1, 2, 3, 4, 9].map(reconnectDelay)).toEqual([1000, 2000, 5000, 10000, 10000, 10000]);
  });

  it("waits 1 s, 2 s, 5 s, 10 s, 10 s between failed attempts", async () => {
    vi.useFakeTimers();
    const attempts: number[] = [];
    const transport = createRouterTransport((router) =>
      router.service(EventsService, {
        // eslint-disable-next-line require-yield -- a server stream that fails before its first message: the handler is a generator that never yields.
        async *watchEvents() {
          attempts.push(Date.now());
          throw new ConnectError("down", Code.Unavailable);
        },
      }),
    );
    const { controller, statuses, done } = watch(transport);
    await vi.advanceTimersByTimeAsync(1000 + 2000 + 5000 + 10000 + 10000 + 100);
    controller.abort();
    await done;

    expect(attempts).toHaveLength(6);
    expect(attempts.slice(1).map((at, i) => at - attempts[i])).toEqual([1000, 2000, 5000, 10000, 10000]);
    expect(statuses).not.toContain("connected");
  });

  it("skips heartbeats, passes events on and resumes after the last cursor", async () => {
    const feed = liveFeed();
    const { controller, events, statuses, done } = watch(createRouterTransport((router) => feed.register(router)));
    await vi.waitFor(() => expect(feed.open).toBe(1));
    expect(feed.requests[0].resumeAfter).toBe("");

    feed.push({ cursor: "c1", event: { case: "heartbeat", value: {} } });
    feed.push({ cursor: "c2", event: { case: "paymentMethodsChanged", value: { paymentMethodId: "pm-1" } } });
    await vi.waitFor(() => expect(events).toHaveLength(1));
    expect(events[0].event.case).toBe("paymentMethodsChanged");
    expect(statuses.at(-1)).toBe("connected");

    feed.fail(new ConnectError("stream reset", Code.Unavailable));
    await vi.waitFor(() => expect(statuses.at(-1)).toBe("reconnecting"));
    await vi.waitFor(() => expect(feed.requests).toHaveLength(2), { timeout: 3000 });
    expect(feed.requests[1].resumeAfter).toBe("c2");

    controller.abort();
    await done;
    expect(feed.open).toBe(0);
  });

  it("stops for good when the session has ended", async () => {
    const transport = createRouterTransport((router) =>
      router.service(EventsService, {
        // eslint-disable-next-line require-yield -- a server stream that fails before its first message: the handler is a generator that never yields.
        async *watchEvents() {
          throw new ConnectError("you must be logged in", Code.Unauthenticated);
        },
      }),
    );
    const { onUnauthenticated, statuses, done } = watch(transport);
    await done; // returns without being aborted
    expect(onUnauthenticated).toHaveBeenCalledTimes(1);
    expect(statuses).toEqual(["reconnecting"]);
  });
});

describe("watchLiveEvents when the server refuses the cursor", () => {
  it("starts again from now and asks for a re-read", async () => {
    const feed = liveFeed();
    const transport = createRouterTransport((router) => feed.register(router));
    const controller = new AbortController();
    const onResync = vi.fn();
    const done = watchLiveEvents({
      transport,
      signal: controller.signal,
      onEvent: () => {},
      onStatus: () => {},
      onUnauthenticated: () => {},
      onResync,
    });
    await vi.waitFor(() => expect(feed.open).toBe(1));
    feed.push({ cursor: "41", event: { case: "heartbeat", value: {} } });
    feed.fail(new ConnectError("resume_after is not a cursor this server issued", Code.InvalidArgument));
    await vi.waitFor(() => expect(onResync).toHaveBeenCalledTimes(1));
    await vi.waitFor(() => expect(feed.requests).toHaveLength(2), { timeout: 3000 });
    expect(feed.requests[1].resumeAfter).toBe("");
    controller.abort();
    await done;
  });
});
