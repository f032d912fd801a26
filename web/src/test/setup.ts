import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { toast } from "sonner";
import { afterEach, beforeEach, vi } from "vitest";
import { staticMediaQueryList } from "./media-query";

// jsdom has no matchMedia; the theme and sonner ask for it.
if (typeof window.matchMedia !== "function") {
  Object.defineProperty(window, "matchMedia", {
    configurable: true,
    value: (query: string) => staticMediaQueryList(query, false),
  });
}

/**
 * The tests' clock: a fixed instant, mid-morning in Johannesburg, that moves on with real time
 * from there (only Date is faked; timers stay real). The app shows dates as Johannesburg's
 * ("Today", "Yesterday, 23:55", a schedule's "a month from today"), and fixtures are made
 * relative to now ("paid five minutes ago"): on the wall clock, a run in the minutes after
 * Johannesburg's midnight, or between 22:00 and 24:00 UTC when its date is already the next
 * one, turned those into other days and failed five tests in CI. `THUMELA_TEST_NOW` sets
 * another instant (an ISO 8601 string), to try the suite at an awkward hour.
 */
const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
export const TEST_NOW = new Date(env.THUMELA_TEST_NOW ?? "2026-11-25T08:00:00Z");

function pinTheClock() {
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(TEST_NOW);
}

pinTheClock();
// Each test starts from the same instant, whatever the last one did with the timers
// (vi.useRealTimers puts the wall clock back).
beforeEach(pinTheClock);

afterEach(() => {
  cleanup();
  window.localStorage.clear();
  window.sessionStorage.clear();
  vi.restoreAllMocks();
});

// jsdom does not scroll; the router's scroll restoration calls it on every navigation.
window.scrollTo = () => {};

// jsdom has no ResizeObserver; Radix (switch, menus) measures elements with it.
if (typeof window.ResizeObserver !== "function") {
  window.ResizeObserver = class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
}

// Nor pointer capture or scrollIntoView, which Radix menus call on their items.
Element.prototype.hasPointerCapture ??= () => false;
Element.prototype.releasePointerCapture ??= () => {};
Element.prototype.scrollIntoView ??= () => {};

// Sonner keeps its toasts in module state, so one test's toasts would show again in the next
// test's Toaster: dismiss them all after each test.
afterEach(() => {
  toast.dismiss();
});

// On a busy machine (several workers, a Go build alongside) a page's lazy chunk can take more
// than Testing Library's default 1 s to arrive; waiting longer only slows failing tests.
configure({ asyncUtilTimeout: 10_000 });
vi.setConfig({ testTimeout: 30_000 });
