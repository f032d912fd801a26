import { act, render, screen, waitFor } from "@testing-library/react";
import { Toaster, toast } from "sonner";
import { afterEach, describe, expect, it } from "vitest";
import { failureToast } from "./failure-toast";

/** The first toast's time on screen in the leaving test (the second stays: the toaster's 60 s). */
const DURATION_MS = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The toasts on screen and not leaving (sonner marks a leaving one data-removed="true"). */
const shown = () => Array.from(document.querySelectorAll("[data-sonner-toast]")).filter((t) => t.getAttribute("data-removed") !== "true");

afterEach(() => {
  act(() => {
    toast.dismiss();
  });
});

describe("failureToast", () => {
  it("replaces its toast while it is on screen rather than stacking a second", async () => {
    render(<Toaster duration={60_000} />);
    const refused = failureToast("test-replace");
    act(() => {
      refused.show("Missing fields", { description: "first" });
    });
    await screen.findByText("first");
    act(() => {
      refused.show("Missing fields", { description: "second" });
    });
    await screen.findByText("second");
    expect(shown()).toHaveLength(1);
    act(() => {
      refused.dismiss();
    });
    await waitFor(() => expect(shown()).toHaveLength(0));
  });

  // Sonner animates a toast out for 200 ms once its time is up; an update under its id in that
  // moment went to the leaving toast, and a press showed nothing.
  it("shows a failure that comes while its last toast is leaving", async () => {
    render(<Toaster duration={60_000} />);
    const refused = failureToast("test-leaving");
    act(() => {
      refused.show("Missing fields", { description: "first", duration: DURATION_MS });
    });
    await screen.findByText("first");
    await waitFor(() => expect(shown()).toHaveLength(0), { timeout: DURATION_MS + 1000, interval: 5 });
    act(() => {
      refused.show("Missing fields", { description: "again" });
    });
    // Past the leaving toast's 200 ms: the new failure is still there.
    await sleep(400);
    expect(screen.getByText("again")).toBeInTheDocument();
    expect(shown()).toHaveLength(1);
  });

  it("shows a failure that comes after its last toast was closed", async () => {
    render(<Toaster duration={60_000} />);
    const refused = failureToast("test-closed");
    act(() => {
      refused.show("Login failed", { description: "first" });
    });
    await screen.findByText("first");
    act(() => {
      refused.dismiss();
    });
    act(() => {
      refused.show("Login failed", { description: "again" });
    });
    await sleep(400);
    expect(screen.getByText("again")).toBeInTheDocument();
  });
});
