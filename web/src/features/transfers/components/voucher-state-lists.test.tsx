import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { configure, screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { Bank, CollectionStatus, RefundStatus, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { liveFeed } from "@/test/live-feed";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";
import { completed, makeTransfer, withChanges, withVoucher } from "../test-utils";

// The first render of a lazy route transforms its modules: allow for a slow, busy machine.
configure({ asyncUtilTimeout: 4000 });
vi.setConfig({ testTimeout: 20_000 });

const saClock = new Intl.DateTimeFormat("en-ZA", { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: "Africa/Johannesburg" });

function toThandi(): Transfer {
  return completed(
    makeTransfer({ recipientName: "Thandi Mokoena", bank: Bank.FNB, amountCents: 50000n, totalAmountCents: 51245n }),
    { refundStatus: RefundStatus.NONE },
  );
}

function collected(transfer: Transfer, at: number): Transfer {
  return withVoucher(transfer, {
    collectionStatus: CollectionStatus.COLLECTED,
    collectedAt: timestampFromMs(at),
    collectedAtLocation: "FNB ATM Sandton City",
  });
}

function cancelled(transfer: Transfer, refund: RefundStatus): Transfer {
  return withChanges(withVoucher(transfer, { collectionStatus: CollectionStatus.CANCELLED }), { refundStatus: refund });
}

function renderAt(path: string, initial: Transfer[], live?: ReturnType<typeof liveFeed>) {
  let current = initial;
  const utils = renderApp(path, {
    session: SIGNED_IN,
    routes: (r) => {
      r.rpc(TransfersService.method.listTransfers, () => ({ transfers: current, totalCount: current.length }));
      live?.register(r);
    },
  });
  return { ...utils, setTransfers: (next: Transfer[]) => (current = next) };
}

describe("the voucher's state in the lists", () => {
  it("dashboard rows show it beside the status; a refunded transfer's check is not green", async () => {
    const at = Date.now() - 60_000;
    const done = collected(toThandi(), at);
    const refunded = cancelled(withChanges(toThandi(), { id: "ffffffff-0000-4000-8000-000000000001", recipientName: "Sipho Dlamini" }), RefundStatus.REFUNDED);
    renderAt("/dashboard", [done, refunded]);
    const recent = await screen.findByRole("region", { name: "Recent Transactions" });
    const thandi = await within(recent).findByRole("button", { name: /Thandi Mokoena/ });
    expect(thandi).toHaveTextContent(`Collected at FNB ATM Sandton City, ${saClock.format(at)}`);
    const sipho = within(recent).getByRole("button", { name: /Sipho Dlamini/ });
    expect(sipho).toHaveTextContent("Cancelled · refunded");
    const check = within(sipho).getByRole("img", { name: "Completed" });
    expect(check.getAttribute("class")).not.toMatch(/emerald/);
    expect(within(thandi).getByRole("img", { name: "Completed" }).getAttribute("class")).toMatch(/emerald/);
  });

  it("history rows show it under the status; a refund pending is neutral, never a green 'Completed'", async () => {
    const pending = cancelled(toThandi(), RefundStatus.PENDING);
    renderAt("/transactions", [pending]);
    const row = await screen.findByRole("row", { name: /Thandi Mokoena/ });
    expect(row).toHaveTextContent("Cancelled · refund pending");
    const badge = within(row).getByText("Completed");
    expect(badge.className).not.toMatch(/emerald/);
    expect(badge.className).toMatch(/slate/);
  });

  it("history rows of an awaiting voucher say when it expires", async () => {
    renderAt("/transactions", [toThandi()]);
    const row = await screen.findByRole("row", { name: /Thandi Mokoena/ });
    expect(row).toHaveTextContent(/Awaiting collection · expires \w{3} \d{1,2} \w{3}/);
  });
});

describe("live: the cash collected and the refund made", () => {
  it("the dashboard row follows the collection live, with one 'Cash collected' toast", async () => {
    const live = liveFeed();
    const waiting = toThandi();
    const { setTransfers } = renderAt("/dashboard", [waiting], live);
    const recent = await screen.findByRole("region", { name: "Recent Transactions" });
    const row = await within(recent).findByRole("button", { name: /Thandi Mokoena/ });
    expect(row).toHaveTextContent("Awaiting collection");
    await vi.waitFor(() => expect(live.open).toBe(1));

    const at = Date.now();
    const done = collected(waiting, at);
    setTransfers([done]);
    live.push({ cursor: "1", event: { case: "transferUpdated", value: { transfer: done } } });
    await vi.waitFor(() => expect(row).toHaveTextContent(`Collected at FNB ATM Sandton City, ${saClock.format(at)}`));
    await expectToast("Cash collected", "Thandi Mokoena collected R500,00 at FNB ATM Sandton City.");

    // The same news again (a replay, or a second event of the same change) is not told twice.
    live.push({ cursor: "2", event: { case: "transferUpdated", value: { transfer: done } } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const toasts = screen.queryAllByRole("listitem").filter((item) => item.textContent?.includes("Cash collected"));
    expect(toasts).toHaveLength(1);
  });

  it("a refund made says 'Refund complete'; a refund pending says nothing yet", async () => {
    const live = liveFeed();
    const waiting = toThandi();
    const { setTransfers } = renderAt("/dashboard", [waiting], live);
    const recent = await screen.findByRole("region", { name: "Recent Transactions" });
    const row = await within(recent).findByRole("button", { name: /Thandi Mokoena/ });
    await vi.waitFor(() => expect(live.open).toBe(1));

    const pending = cancelled(waiting, RefundStatus.PENDING);
    setTransfers([pending]);
    live.push({ cursor: "1", event: { case: "transferUpdated", value: { transfer: pending } } });
    await vi.waitFor(() => expect(row).toHaveTextContent("Cancelled · refund pending"));
    expect(screen.queryByText("Refund complete")).not.toBeInTheDocument();

    const refunded = cancelled(waiting, RefundStatus.REFUNDED);
    setTransfers([refunded]);
    live.push({ cursor: "2", event: { case: "transferUpdated", value: { transfer: refunded } } });
    await expectToast("Refund complete", "R512,45 was refunded to your card.");
    await vi.waitFor(() => expect(row).toHaveTextContent("Cancelled · refunded"));
  });
});
