import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { readWaitlist, waitlistStorageKey } from "../lib/waitlist";

const SLOW = { timeout: 10_000 };
const OTHER_USER = { user: { id: "u-2", email: "sipho@example.co.za" }, profile: { firstName: "Sipho" } };

async function openBeta(session = SIGNED_IN) {
  const app = renderApp("/beta-features", { session });
  await screen.findByRole("heading", { level: 1, name: "BETA Features" }, SLOW);
  return app;
}

describe("BETA Features", () => {
  it("shows the intro card and the two features with their ids, statuses and benefits", async () => {
    await openBeta();
    expect(screen.getByRole("heading", { name: "Help shape Thumela" })).toBeInTheDocument();
    const payByBank = screen.getByRole("region", { name: "Pay by Bank" });
    expect(payByBank.closest("li")).toHaveAttribute("id", "pay-by-bank");
    expect(within(payByBank).getByText("Coming Soon")).toBeInTheDocument();
    expect(within(payByBank).getAllByRole("listitem").length).toBeGreaterThanOrEqual(3);
    const moreBanks = screen.getByRole("region", { name: "More Banks & Withdrawal Points" });
    expect(moreBanks.closest("li")).toHaveAttribute("id", "more-banks-withdrawal");
    expect(within(moreBanks).getByText("In Development")).toBeInTheDocument();
  });

  it("Join Waitlist: toast with the feature title, joined state, remembered per user in localStorage", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const { user, unmount } = await openBeta();
    await user.click(screen.getByRole("button", { name: "Join Waitlist for Pay by Bank" }));

    expect(await screen.findByText("Waitlist joined")).toBeInTheDocument();
    const toast = screen.getByText("Waitlist joined").closest("li")!;
    expect(within(toast).getByText("Pay by Bank")).toBeInTheDocument();
    const joined = screen.getByRole("button", { name: "Joined Waitlist for Pay by Bank" });
    expect(joined).toBeDisabled();
    expect(joined).toHaveTextContent("Joined Waitlist");
    expect(screen.getByRole("button", { name: "Join Waitlist for More Banks & Withdrawal Points" })).toBeEnabled();
    expect(waitlistStorageKey("u-1")).toContain("u-1");
    expect(readWaitlist("u-1")).toEqual(["pay-by-bank"]);
    expect(fetchSpy).not.toHaveBeenCalled();

    // Still joined after leaving and coming back (a reload reads the same storage).
    unmount();
    await openBeta();
    expect(screen.getByRole("button", { name: "Joined Waitlist for Pay by Bank" })).toBeDisabled();
  });

  it("keeps each user's waitlists apart", async () => {
    window.localStorage.setItem(waitlistStorageKey("u-1"), JSON.stringify(["pay-by-bank", "more-banks-withdrawal"]));
    await openBeta(OTHER_USER);
    expect(screen.getByRole("button", { name: "Join Waitlist for Pay by Bank" })).toBeEnabled();
    expect(screen.getByRole("button", { name: "Join Waitlist for More Banks & Withdrawal Points" })).toBeEnabled();
  });

  it("survives damaged storage", () => {
    window.localStorage.setItem(waitlistStorageKey("u-1"), "{not json");
    expect(readWaitlist("u-1")).toEqual([]);
    window.localStorage.setItem(waitlistStorageKey("u-1"), JSON.stringify({ a: 1 }));
    expect(readWaitlist("u-1")).toEqual([]);
  });
});
