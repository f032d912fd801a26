import { screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { referralCode, referralLink } from "../lib/referral-code";

const SLOW = { timeout: 10_000 };
const CODE = referralCode("u-1");
const LINK = referralLink(CODE);

async function openReferral() {
  const app = renderApp("/refer-friend", { session: SIGNED_IN });
  await screen.findByRole("heading", { level: 1, name: "Refer a Friend" }, SLOW);
  return app;
}

function stubShare(share: ((data: ShareData) => Promise<void>) | undefined) {
  Object.defineProperty(navigator, "share", { configurable: true, writable: true, value: share });
}

afterEach(() => {
  Reflect.deleteProperty(navigator, "share");
});

describe("Refer a Friend", () => {
  it("shows the user's own code, the three steps and the spec's rewards", async () => {
    await openReferral();
    expect(screen.getByTestId("referral-code")).toHaveTextContent(CODE);
    for (const step of ["Share your code", "Your friend signs up", "You both get rewarded"]) {
      expect(screen.getByRole("heading", { name: step })).toBeInTheDocument();
    }
    expect(screen.getByRole("heading", { name: /Your friend gets R50,00/ })).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: /You get R100,00 per friend/ })).toBeInTheDocument();
  });

  it("copies the code: 'Referral code copied!'", async () => {
    const { user } = await openReferral();
    await user.click(screen.getByRole("button", { name: "Copy referral code" }));
    expect(await screen.findByText("Referral code copied!")).toBeInTheDocument();
    await expect(navigator.clipboard.readText()).resolves.toBe(CODE);
  });

  it("says so when the clipboard is blocked", async () => {
    const { user } = await openReferral();
    vi.spyOn(navigator.clipboard, "writeText").mockRejectedValue(new DOMException("denied", "NotAllowedError"));
    await user.click(screen.getByRole("button", { name: "Copy referral code" }));
    expect(await screen.findByText("Couldn't copy")).toBeInTheDocument();
    expect(screen.queryByText("Referral code copied!")).not.toBeInTheDocument();
  });

  it("shares with navigator.share when the browser has it", async () => {
    const share = vi.fn(async () => {});
    stubShare(share);
    const { user } = await openReferral();
    await user.click(screen.getByRole("button", { name: "Share" }));
    expect(share).toHaveBeenCalledWith(expect.objectContaining({ url: LINK, text: expect.stringContaining(CODE) }));
    expect(screen.queryByText("Copied referral link!")).not.toBeInTheDocument();
  });

  it("copies the link when sharing is unavailable: 'Copied referral link!'", async () => {
    stubShare(undefined);
    const { user } = await openReferral();
    await user.click(screen.getByRole("button", { name: "Share" }));
    expect(await screen.findByText("Copied referral link!")).toBeInTheDocument();
    await expect(navigator.clipboard.readText()).resolves.toBe(LINK);
  });

  it("copies the link when sharing fails", async () => {
    stubShare(async () => {
      throw new DOMException("not allowed", "NotAllowedError");
    });
    const { user } = await openReferral();
    await user.click(screen.getByRole("button", { name: "Share" }));
    expect(await screen.findByText("Copied referral link!")).toBeInTheDocument();
    await expect(navigator.clipboard.readText()).resolves.toBe(LINK);
  });

  it("does nothing more when the user closes the share sheet", async () => {
    stubShare(async () => {
      throw new DOMException("cancelled", "AbortError");
    });
    const { user } = await openReferral();
    await user.click(screen.getByRole("button", { name: "Share" }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByText("Copied referral link!")).not.toBeInTheDocument();
  });
});
