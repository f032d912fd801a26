import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CreditMovementKind, CreditService, GetCreditResponseSchema } from "@/gen/thumela/bff/v1/bff_pb";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { liveFeed } from "@/test/live-feed";
import { SIGNED_IN, TEST_REFERRAL_CODE, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";
import { referralLink } from "../lib/referral-link";

const SLOW = { timeout: 10_000 };
// The server's code, not one this page derives (the session's user id would give another).
const CODE = TEST_REFERRAL_CODE;
const LINK = referralLink(CODE);

async function openReferral(routes?: (r: ConnectRouter) => void) {
  const app = renderApp("/refer-friend", { session: SIGNED_IN, routes });
  await screen.findByRole("heading", { level: 1, name: "Refer a Friend" }, SLOW);
  await screen.findByTestId("referral-code", {}, SLOW);
  return app;
}

const A_MINUTE_AGO = Date.now() - 60_000;

function creditOf(init: MessageInitShape<typeof GetCreditResponseSchema>) {
  return create(GetCreditResponseSchema, { referralCode: CODE, ...init });
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
    expect(screen.getByTestId("referral-link")).toHaveTextContent(LINK);
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

  it("copies the link with its own button", async () => {
    const { user } = await openReferral();
    await user.click(screen.getByRole("button", { name: "Copy referral link" }));
    await expectToast("Copied referral link!");
    await expect(navigator.clipboard.readText()).resolves.toBe(LINK);
  });

  it("shows friends joined, rewards earned, credit left and the recent movements", async () => {
    await openReferral((r) =>
      r.rpc(CreditService.method.getCredit, () =>
        creditOf({
          balanceCents: 12_345n,
          friendsJoined: 2,
          friendsRewarded: 1,
          rewardsEarnedCents: 10_000n,
          recentMovements: [
            { id: "m-2", kind: CreditMovementKind.SPENT, amountCents: -2_655n, transferId: "t-1", occurredAt: timestampFromMs(A_MINUTE_AGO) },
            { id: "m-1", kind: CreditMovementKind.REFERRAL_REWARD, amountCents: 10_000n, occurredAt: timestampFromMs(A_MINUTE_AGO - 60_000) },
          ],
        }),
      ),
    );
    const figures = screen.getByRole("region", { name: "Your referrals and credit" });
    const term = (name: string) => within(figures).getByText(name).nextElementSibling;
    expect(term("Friends joined")).toHaveTextContent("2");
    expect(within(figures).getByText("1 completed a first transfer")).toBeInTheDocument();
    expect(term("Rewards earned")).toHaveTextContent("R100,00");
    expect(term("Credit left")).toHaveTextContent("R123,45");
    const movements = within(figures).getByRole("list", { name: "Recent credit" });
    const rows = within(movements).getAllByRole("listitem");
    expect(rows[0]).toHaveTextContent(/Spent on a transfer.*−R26,55/);
    expect(rows[1]).toHaveTextContent(/Reward: a friend completed a first transfer.*\+R100,00/);
  });

  it("says when there is no credit yet", async () => {
    await openReferral();
    expect(screen.getByText("No credit yet. When a friend joins with your code, you see it here.")).toBeInTheDocument();
  });

  it("says when the details cannot be read, and offers to try again", async () => {
    let fail = true;
    renderApp("/refer-friend", {
      session: SIGNED_IN,
      routes: (r) =>
        r.rpc(CreditService.method.getCredit, () => {
          if (fail) throw new ConnectError("unavailable", Code.Unavailable);
          return creditOf({});
        }),
    });
    expect(await screen.findByText("We couldn't load your referral details.", { selector: "p" }, SLOW)).toBeInTheDocument();
    await expectToast("We couldn't load your referral details.");
    fail = false;
    screen.getByRole("button", { name: "Try again" }).click();
    expect(await screen.findByTestId("referral-code")).toHaveTextContent(CODE);
  });

  it("reads the figures again when the live stream says the credit changed", async () => {
    const live = liveFeed();
    let credit = creditOf({});
    await openReferral((r) => {
      r.rpc(CreditService.method.getCredit, () => credit);
      live.register(r);
    });
    await waitFor(() => expect(live.open).toBe(1));
    credit = creditOf({ balanceCents: 10_000n, friendsJoined: 1, friendsRewarded: 1, rewardsEarnedCents: 10_000n });
    live.push({ cursor: "3", event: { case: "creditChanged", value: { balanceCents: 10_000n } } });
    const figures = screen.getByRole("region", { name: "Your referrals and credit" });
    await waitFor(() => expect(within(figures).getByText("Credit left").nextElementSibling).toHaveTextContent("R100,00"));
    expect(within(figures).getByText("Friends joined").nextElementSibling).toHaveTextContent("1");
  });
});
