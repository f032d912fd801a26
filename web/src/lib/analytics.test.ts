import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ANALYTICS_FLUSH_DELAY_MS, ANALYTICS_MAX_BATCH, flushAnalytics, setAnalyticsSender, track } from "./analytics";
import type { AnalyticsEventInit } from "./analytics";

describe("analytics", () => {
  let batches: Array<{ anonymousId: string; events: AnalyticsEventInit[] }>;

  beforeEach(() => {
    vi.useFakeTimers();
    batches = [];
    setAnalyticsSender(async (anonymousId, events) => {
      batches.push({ anonymousId, events });
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

  it("keeps one anonymous id per browser", async () => {
    track("transaction_started");
    await flushAnalytics();
    track("transaction_completed");
    await flushAnalytics();
    expect(batches).toHaveLength(2);
    expect(batches[0].anonymousId).toMatch(/^[0-9a-f-]{36}$/);
    expect(batches[1].anonymousId).toBe(batches[0].anonymousId);
  });

  it("sends a full batch at once", async () => {
    for (let i = 0; i < ANALYTICS_MAX_BATCH; i++) track("transaction_step_completed", { step: i });
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toHaveLength(1);
    expect(batches[0].events).toHaveLength(ANALYTICS_MAX_BATCH);
  });

  it("never throws, even when delivery fails", async () => {
    setAnalyticsSender(async () => {
      throw new Error("offline");
    });
    expect(() => track("transaction_failed", { error: "x" })).not.toThrow();
    await expect(flushAnalytics()).resolves.toBeUndefined();
  });

  it("sends nothing when no sender is installed", async () => {
    setAnalyticsSender(undefined);
    track("transaction_started");
    await expect(flushAnalytics()).resolves.toBeUndefined();
  });
});
