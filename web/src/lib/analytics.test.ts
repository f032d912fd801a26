import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  ANALYTICS_EVENT_NAMES,
  ANALYTICS_FLUSH_DELAY_MS,
  ANALYTICS_MAX_BATCH,
  ANALYTICS_MAX_ERRORS,
  ANALYTICS_MAX_QUEUE,
  ANALYTICS_MAX_TEXT,
  ANONYMOUS_ID_KEY,
  fetchAnalyticsSender,
  flushAnalytics,
  identify,
  installAnalytics,
  pendingAnalyticsEvents,
  resetAnalytics,
  setAnalyticsSender,
  track,
} from "./analytics";
import type { AnalyticsEventInit, AnalyticsSendOptions } from "./analytics";

/** The names the BFF accepts (bff/internal/handlers/analytics.go AnalyticsEvents). */
const BFF_ACCEPTS = [
  "transaction_started",
  "transaction_completed",
  "transaction_failed",
  "transaction_step_completed",
  "user_logged_in",
  "user_signed_up",
  "user_logged_out",
  "password_reset_requested",
  "profile_updated",
  "Application Closed",
  "landing_page_viewed",
  "clicked_features_section",
  "js_error",
  "unhandled_promise_rejection",
  "$pageview",
  "$pageleave",
  "$identify",
  "$reset",
];

describe("analytics", () => {
  let batches: Array<{ anonymousId: string; events: AnalyticsEventInit[]; options?: AnalyticsSendOptions }>;

  beforeEach(() => {
    vi.useFakeTimers();
    batches = [];
    setAnalyticsSender(async (anonymousId, events, options) => {
      batches.push({ anonymousId, events, options });
    });
  });

  afterEach(() => {
    setAnalyticsSender(undefined);
    vi.useRealTimers();
  });

  it("batches events and sends them after a short delay, with the time and URL", async () => {
    track("transaction_started", { amount: "150.00", recipientName: "Sipho", skipped: undefined });
    track("transaction_step_completed", { step: 1 });
    expect(batches).toHaveLength(0);

    await vi.advanceTimersByTimeAsync(ANALYTICS_FLUSH_DELAY_MS);
    expect(batches).toHaveLength(1);
    const [first, second] = batches[0].events;
    expect(first).toMatchObject({
      name: "transaction_started",
      properties: { amount: "150.00", recipientName: "Sipho" },
      url: window.location.href,
    });
    expect(first.properties).not.toHaveProperty("skipped");
    expect(first.timestampMs).toBe(Date.now() - ANALYTICS_FLUSH_DELAY_MS);
    expect(second).toMatchObject({ name: "transaction_step_completed", properties: { step: 1 } });
  });

  it("keeps one anonymous id per browser, in local storage", async () => {
    track("$pageview");
    await flushAnalytics();
    track("$pageview");
    await flushAnalytics();
    expect(batches).toHaveLength(2);
    expect(batches[0].anonymousId).toMatch(/^[0-9a-f-]{36}$/);
    expect(batches[1].anonymousId).toBe(batches[0].anonymousId);
    expect(window.localStorage.getItem(ANONYMOUS_ID_KEY)).toBe(batches[0].anonymousId);
  });

  it("replaces a stored anonymous id the BFF would refuse", async () => {
    window.localStorage.setItem(ANONYMOUS_ID_KEY, "bad id!");
    track("$pageview");
    await flushAnalytics();
    expect(batches[0].anonymousId).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
  });

  it("sends a full batch at once", async () => {
    for (let i = 0; i < ANALYTICS_MAX_BATCH; i++) track("transaction_step_completed", { step: i });
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toHaveLength(1);
    expect(batches[0].events).toHaveLength(ANALYTICS_MAX_BATCH);
  });

  it("never sends more than ANALYTICS_MAX_BATCH events per request (the BFF accepts ≤ 50)", async () => {
    for (let i = 0; i < 45; i++) track("$pageview", { i });
    await vi.advanceTimersByTimeAsync(ANALYTICS_FLUSH_DELAY_MS);
    expect(batches.map((batch) => batch.events.length)).toEqual([20, 20, 5]);
    expect(ANALYTICS_MAX_BATCH).toBeLessThanOrEqual(50);
  });

  it("accepts only the event names the BFF accepts", async () => {
    expect([...ANALYTICS_EVENT_NAMES].sort()).toEqual([...BFF_ACCEPTS].sort());
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    track("page_not_found", { path: "/nope" });
    track("$autocapture");
    track("landing_page_viewed", { referrer: "direct", landing_page_version: "1.0" });
    await flushAnalytics();
    expect(batches).toHaveLength(1);
    expect(batches[0].events.map((event) => event.name)).toEqual(["landing_page_viewed"]);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("page_not_found"));
  });

  it("cuts long text and turns numbers JSON cannot carry into null", async () => {
    track("js_error", { message: "x".repeat(5000), stack: "s".repeat(10_000), line: Number.NaN, column: Infinity });
    await flushAnalytics();
    const { properties } = batches[0].events[0];
    expect((properties.message as string).length).toBe(ANALYTICS_MAX_TEXT);
    expect((properties.stack as string).length).toBeLessThanOrEqual(3000);
    expect(properties.line).toBeNull();
    expect(properties.column).toBeNull();
  });

  it("keeps at most ANALYTICS_MAX_QUEUE events while nothing can be sent", () => {
    setAnalyticsSender(undefined);
    for (let i = 0; i < ANALYTICS_MAX_QUEUE + 25; i++) track("$pageview", { i });
    const pending = pendingAnalyticsEvents();
    expect(pending).toHaveLength(ANALYTICS_MAX_QUEUE);
    expect(pending[0].properties.i).toBe(25); // the oldest went first
  });

  it("never throws, even when delivery fails", async () => {
    setAnalyticsSender(async () => {
      throw new Error("offline");
    });
    expect(() => track("transaction_failed", { error: "x" })).not.toThrow();
    await expect(flushAnalytics()).resolves.toBeUndefined();
    expect(pendingAnalyticsEvents()).toHaveLength(0); // dropped, not retried forever
  });

  it("sends nothing when no sender is installed", async () => {
    setAnalyticsSender(undefined);
    track("transaction_started");
    await expect(flushAnalytics()).resolves.toBeUndefined();
  });

  it("identify sends $identify with the user's id and e-mail", async () => {
    identify({ id: "u-1", email: "thandi@example.co.za" });
    identify(undefined);
    await flushAnalytics();
    expect(batches[0].events).toHaveLength(1);
    expect(batches[0].events[0]).toMatchObject({
      name: "$identify",
      properties: { user_id: "u-1", email: "thandi@example.co.za" },
    });
  });

  it("reset sends $reset under the old anonymous id, then starts a new one", async () => {
    track("$pageview");
    await flushAnalytics();
    const before = batches[0].anonymousId;

    await resetAnalytics();
    expect(batches[1].anonymousId).toBe(before);
    expect(batches[1].events.map((event) => event.name)).toEqual(["$reset"]);

    track("$pageview");
    await flushAnalytics();
    expect(batches[2].anonymousId).not.toBe(before);
    expect(window.localStorage.getItem(ANONYMOUS_ID_KEY)).toBe(batches[2].anonymousId);
  });

  describe("page lifetime (installAnalytics)", () => {
    beforeEach(() => installAnalytics());

    it("records $pageleave and 'Application Closed' on pagehide and sends them with keepalive", async () => {
      track("$pageview");
      window.dispatchEvent(new Event("pagehide"));
      await vi.advanceTimersByTimeAsync(0);
      expect(batches).toHaveLength(1);
      expect(batches[0].events.map((event) => event.name)).toEqual(["$pageview", "$pageleave", "Application Closed"]);
      expect(batches[0].options).toEqual({ keepalive: true });
    });

    it("reports uncaught errors as js_error with message, source, line, column and stack", async () => {
      const error = new Error("boom");
      window.dispatchEvent(
        new ErrorEvent("error", { message: "Uncaught Error: boom", filename: "https://thumela.test/app.js", lineno: 12, colno: 7, error }),
      );
      await flushAnalytics();
      expect(batches[0].events[0]).toMatchObject({
        name: "js_error",
        properties: {
          message: "Uncaught Error: boom",
          source: "https://thumela.test/app.js",
          line: 12,
          column: 7,
          stack: expect.stringContaining("boom"),
        },
      });
    });

    it("reports unhandled promise rejections", async () => {
      const event = new Event("unhandledrejection") as Event & { reason: unknown };
      event.reason = new Error("rejected");
      window.dispatchEvent(event);
      await flushAnalytics();
      expect(batches[0].events[0]).toMatchObject({
        name: "unhandled_promise_rejection",
        properties: { message: "rejected", stack: expect.stringContaining("rejected") },
      });
    });

    it("reports at most ANALYTICS_MAX_ERRORS errors per page", async () => {
      for (let i = 0; i < ANALYTICS_MAX_ERRORS + 10; i++) {
        window.dispatchEvent(new ErrorEvent("error", { message: `error ${i}` }));
      }
      await flushAnalytics();
      const count = batches.flatMap((batch) => batch.events).filter((event) => event.name === "js_error").length;
      expect(count).toBe(ANALYTICS_MAX_ERRORS);
    });
  });
});

describe("the fetch sender", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("POSTs the batch to AnalyticsService.Track as Connect JSON, same origin", async () => {
    const fetchMock = vi.fn(async () => new Response("{}", { status: 200 }));
    vi.stubGlobal("fetch", fetchMock);
    await fetchAnalyticsSender(
      "anon-12345678",
      [{ name: "$pageview", properties: { path: "/" }, timestampMs: Date.UTC(2025, 3, 1, 8, 0, 0), url: "http://localhost/" }],
      { keepalive: true },
    );
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("/thumela.bff.v1.AnalyticsService/Track");
    expect(init).toMatchObject({ method: "POST", keepalive: true, credentials: "same-origin" });
    expect(init.headers).toMatchObject({ "Content-Type": "application/json", "Connect-Protocol-Version": "1" });
    expect(JSON.parse(init.body as string)).toEqual({
      anonymousId: "anon-12345678",
      events: [{ name: "$pageview", properties: { path: "/" }, timestamp: "2025-04-01T08:00:00.000Z", url: "http://localhost/" }],
    });
  });

  it("fails on an error answer, so the batch is dropped", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response("{}", { status: 400 })));
    await expect(fetchAnalyticsSender("anon-12345678", [])).rejects.toThrow("400");
  });
});
