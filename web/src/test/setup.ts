import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { toast } from "sonner";
import { afterEach, vi } from "vitest";

// jsdom has no matchMedia; the theme and sonner ask for it.
if (typeof window.matchMedia !== "function") {
  Object.defineProperty(window, "matchMedia", {
    configurable: true,
    value: (query: string) => ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener: () => {},
      removeEventListener: () => {},
      addListener: () => {},
      removeListener: () => {},
      dispatchEvent: () => false,
    }),
  });
}

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
