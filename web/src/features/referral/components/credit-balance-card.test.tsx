import { screen, waitFor } from "@testing-library/react";
import { configure } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { CreditService } from "@/gen/thumela/bff/v1/bff_pb";
import { liveFeed } from "@/test/live-feed";
import { SIGNED_IN, TEST_REFERRAL_CODE, renderApp } from "@/test/render-app";

configure({ asyncUtilTimeout: 4000 });
vi.setConfig({ testTimeout: 20_000 });

describe("the dashboard's transfer credit", () => {
  it("shows the balance while there is some, and follows credit_changed", async () => {
    const live = liveFeed();
    let balance = 5_000n;
    renderApp("/dashboard", {
      session: SIGNED_IN,
      routes: (r) => {
        r.rpc(CreditService.method.getCredit, () => ({ balanceCents: balance, referralCode: TEST_REFERRAL_CODE }));
        live.register(r);
      },
    });
    const card = await screen.findByRole("region", { name: "Transfer credit" });
    expect(card).toHaveTextContent("R50,00");
    expect(screen.getByRole("link", { name: "Earn more" })).toHaveAttribute("href", "/refer-friend");

    await waitFor(() => expect(live.open).toBe(1));
    balance = 0n;
    live.push({ cursor: "1", event: { case: "creditChanged", value: { balanceCents: 0n } } });
    await waitFor(() => expect(screen.queryByRole("region", { name: "Transfer credit" })).not.toBeInTheDocument());
  });

  it("shows nothing without credit", async () => {
    renderApp("/dashboard", { session: SIGNED_IN });
    await screen.findByRole("heading", { name: "Quick Actions" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.queryByRole("region", { name: "Transfer credit" })).not.toBeInTheDocument();
  });
});
