import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { configure, screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { CollectionStatus, RefundStatus, TransferStatus, TransfersService, VoucherSchema } from "@/gen/thumela/bff/v1/bff_pb";
import type { CancelTransferRequest, Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { create } from "@bufbuild/protobuf";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { liveFeed } from "@/test/live-feed";
import { completed, makeTransfer, withChanges } from "../test-utils";
import { addDays, saToday } from "@/lib/date";
import { FAILED_NOT_CHARGED } from "./transaction-details-dialog";

// The first render of a lazy route transforms its modules: allow for a slow, busy machine.
configure({ asyncUtilTimeout: 4000 });
vi.setConfig({ testTimeout: 20_000 });

function hoursAgo(hours: number) {
  return timestampFromMs(Date.now() - hours * 3_600_000);
}

function renderDashboard(transfers: Transfer[], extra: { cancel?: (request: CancelTransferRequest) => Transfer; live?: ReturnType<typeof liveFeed> } = {}) {
  let current = transfers;
  const utils = renderApp("/dashboard", {
    session: SIGNED_IN,
    routes: (r) => {
      r.rpc(TransfersService.method.listTransfers, () => ({ transfers: current, totalCount: current.length }));
      if (extra.cancel) {
        const cancel = extra.cancel;
        r.rpc(TransfersService.method.cancelTransfer, (request) => {
          const cancelled = cancel(request);
          current = current.map((t) => (t.id === cancelled.id ? cancelled : t));
          return { transfer: cancelled };
        });
      }
      extra.live?.register(r);
    },
  });
  return {
    ...utils,
    setTransfers: (next: Transfer[]) => {
      current = next;
    },
  };
}

const term = (dialog: HTMLElement, name: string) => within(dialog).getByText(name, { selector: "dt" }).nextElementSibling;

async function openRow(user: ReturnType<typeof renderApp>["user"], name: string) {
  const recent = await screen.findByRole("region", { name: "Recent Transactions" });
  await user.click(await within(recent).findByRole("button", { name: new RegExp(name) }));
  return screen.findByRole("dialog", { name: "Transaction Details" });
}

describe("transaction details dialog", () => {
  it("shows the reference, the stored amount, fee and total, date, payment method, location and status", async () => {
    const transfer = completed(
      makeTransfer({
        id: "9f8e7d6c-5b4a-4321-8000-123456789abc",
        amountCents: 15000n,
        feeCents: 1140n,
        totalAmountCents: 16140n,
        createdAt: timestampFromMs(Date.parse(`${saToday()}T00:05:00+02:00`)), // 00:05 today in Johannesburg
        withdrawalLocation: { name: "Sandton City", type: "param" },
      }),
    );
    const { user } = renderDashboard([transfer]);
    const dialog = await openRow(user, "Sipho Dlamini");

    expect(within(dialog).getByText("9f8e7d6c")).toBeInTheDocument();
    expect(term(dialog, "Amount")).toHaveTextContent("R150,00");
    expect(term(dialog, "Fee")).toHaveTextContent("R11,40");
    expect(term(dialog, "Total")).toHaveTextContent("R161,40");
    expect(term(dialog, "Date & Time")).toHaveTextContent("Today, 00:05");
    expect(term(dialog, "Payment Method")).toHaveTextContent("Travel Mastercard (•••• 4444)");
    expect(term(dialog, "Withdrawal Location")).toHaveTextContent("Sandton City");
    const status = within(term(dialog, "Status") as HTMLElement).getByText("COMPLETED");
    expect(status).toHaveClass("text-emerald-700");
    expect(term(dialog, "Status")).toHaveTextContent("Awaiting collection");
    expect(term(dialog, "Voucher number")).toHaveTextContent("4820193746");

    const similar = within(dialog).getByRole("link", { name: "Send Similar" });
    const target = new URL(similar.getAttribute("href")!, "http://x");
    expect(target.pathname).toBe("/send-money");
    expect(Object.fromEntries(target.searchParams)).toEqual({
      amount: "150.00",
      recipient: "Sipho Dlamini",
      phone: "+27821234567",
      bank: "1",
    });
  });

  it("shows a failed transfer's fee and total as attempted, struck through and not charged", async () => {
    const transfer = makeTransfer({
      status: TransferStatus.FAILED,
      amountCents: 5000n,
      feeCents: 1110n,
      totalAmountCents: 6110n,
      failureReason: "Card declined",
    });
    const { user } = renderDashboard([transfer]);
    const recent = await screen.findByRole("region", { name: "Recent Transactions" });
    const row = await within(recent).findByRole("button", { name: /Sipho Dlamini/ });
    expect(row).toHaveTextContent("not charged");
    expect(row.querySelector("s")).toHaveTextContent("-R50,00");
    const dialog = await openRow(user, "Sipho Dlamini");
    const fee = term(dialog, "Fee") as HTMLElement;
    const total = term(dialog, "Total") as HTMLElement;
    expect(fee).toHaveTextContent("R11,10");
    expect(fee.querySelector("s")).toHaveTextContent("R11,10");
    expect(fee).toHaveTextContent("Not charged");
    expect(total.querySelector("s")).toHaveTextContent("R61,10");
    expect(total).toHaveTextContent("Not charged");
    expect(within(dialog).getByText(FAILED_NOT_CHARGED)).toBeInTheDocument();
  });

  it("copies the reference number and says so", async () => {
    const transfer = makeTransfer({ id: "abcdef12-3456-4789-8000-000000000001" });
    const { user } = renderDashboard([transfer]);
    const dialog = await openRow(user, "Sipho Dlamini");
    await user.click(within(dialog).getByRole("button", { name: "Copy reference number" }));
    expect(await screen.findByText("Reference number copied to clipboard")).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe("abcdef12");
  });

  it.each([
    [TransferStatus.PENDING, "PENDING", "text-amber-700"],
    [TransferStatus.PROCESSING, "PROCESSING", "text-amber-700"],
    [TransferStatus.FAILED, "FAILED", "text-red-700"],
  ])("colours status %s", async (value, label, tone) => {
    const { user } = renderDashboard([makeTransfer({ status: value })]);
    const dialog = await openRow(user, "Sipho Dlamini");
    expect(within(dialog).getByText(label)).toHaveClass(tone);
    expect(within(dialog).queryByRole("button", { name: "Cancel voucher" })).not.toBeInTheDocument();
  });

  it("shows 'Yesterday, HH:MM' for yesterday's transfers", async () => {
    const yesterday = Date.parse(`${addDays(saToday(), -1)}T18:45:00+02:00`); // in Johannesburg
    const { user } = renderDashboard([makeTransfer({ createdAt: timestampFromMs(yesterday) })]);
    const dialog = await openRow(user, "Sipho Dlamini");
    expect(term(dialog, "Date & Time")).toHaveTextContent("Yesterday, 18:45");
  });

  it("cancels an unclaimed voucher after a confirmation", async () => {
    const transfer = completed(makeTransfer({ createdAt: hoursAgo(2) }));
    const asked: CancelTransferRequest[] = [];
    const { user } = renderDashboard([transfer], {
      cancel: (request) => {
        asked.push(request);
        return withChanges(transfer, {
          voucher: create(VoucherSchema, { number: "4820193746", collectionStatus: CollectionStatus.CANCELLED }),
          refundStatus: RefundStatus.PENDING,
        });
      },
    });
    const dialog = await openRow(user, "Sipho Dlamini");
    await user.click(within(dialog).getByRole("button", { name: "Cancel voucher" }));

    const confirm = await screen.findByRole("alertdialog", { name: "Cancel this voucher?" });
    expect(confirm).toHaveTextContent("R161,40");
    await user.click(within(confirm).getByRole("button", { name: "Keep voucher" }));
    expect(asked).toHaveLength(0);

    await user.click(within(dialog).getByRole("button", { name: "Cancel voucher" }));
    await user.click(within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Yes, cancel voucher" }));
    expect(await screen.findByText("Voucher cancelled")).toBeInTheDocument();
    expect(screen.getByText("R161,40 will be refunded to your card.")).toBeInTheDocument();
    expect(asked).toEqual([expect.objectContaining({ id: transfer.id })]);
    const details = screen.getByRole("dialog", { name: "Transaction Details" });
    // Not 'refunded' before the refund has run: the server says it is pending.
    expect(term(details, "Status")).toHaveTextContent("Cancelled · refund pending");
    expect(term(details, "Status")).not.toHaveTextContent("refunded");
    expect(term(details, "Refund")).toHaveTextContent("R161,40 is being refunded to your card.");
    expect(within(details).queryByRole("button", { name: "Cancel voucher" })).not.toBeInTheDocument();
  });

  it("offers a proof of payment for a send that paid its recipient, or awaits them", async () => {
    const awaiting = completed(makeTransfer({ recipientName: "Sipho Dlamini" }));
    const collected = withChanges(completed(makeTransfer({ recipientName: "Thandi Mokoena" })), {
      voucher: create(VoucherSchema, { number: "4820193746", collectionStatus: CollectionStatus.COLLECTED }),
    });
    const { user } = renderDashboard([awaiting, collected]);
    let dialog = await openRow(user, "Sipho Dlamini");
    expect(within(dialog).getByRole("link", { name: "Proof of payment (PDF)" })).toHaveAttribute(
      "href",
      `/api/transfers/${awaiting.id}/proof-of-payment.pdf`,
    );
    await user.keyboard("{Escape}");
    dialog = await openRow(user, "Thandi Mokoena");
    expect(within(dialog).getByRole("link", { name: "Proof of payment (PDF)" })).toBeInTheDocument();
  });

  // A refunded send paid no one: no "proof" that it was paid (the walk's F9; the BFF refuses it too).
  it.each([
    ["cancelled, refunded", CollectionStatus.CANCELLED, RefundStatus.REFUNDED, "Cancelled · refunded"],
    ["expired, refunded", CollectionStatus.EXPIRED, RefundStatus.REFUNDED, "Expired · refunded"],
    ["cancelled, refund pending", CollectionStatus.CANCELLED, RefundStatus.PENDING, "Cancelled · refund pending"],
    ["cancelled, refund not started", CollectionStatus.CANCELLED, RefundStatus.NONE, "Cancelled"],
  ])("offers no proof of payment for a transfer %s", async (_case, collectionStatus, refundStatus, state) => {
    const transfer = withChanges(completed(makeTransfer()), {
      voucher: create(VoucherSchema, { number: "4820193746", collectionStatus }),
      refundStatus,
    });
    const { user } = renderDashboard([transfer]);
    const dialog = await openRow(user, "Sipho Dlamini");
    expect(term(dialog, "Status")).toHaveTextContent(state);
    expect(within(dialog).getByRole("link", { name: "Send Similar" })).toBeInTheDocument();
    expect(within(dialog).queryByRole("link", { name: /Proof of payment/ })).not.toBeInTheDocument();
  });

  it("offers no proof of payment for a failed or pending transfer", async () => {
    const failed = withChanges(makeTransfer({ recipientName: "Sipho Dlamini" }), { status: TransferStatus.FAILED });
    const { user } = renderDashboard([failed]);
    const dialog = await openRow(user, "Sipho Dlamini");
    expect(within(dialog).queryByRole("link", { name: /Proof of payment/ })).not.toBeInTheDocument();
  });

  it("says when a cancellation is refused", async () => {
    const transfer = completed(makeTransfer());
    const { user } = renderDashboard([transfer], {
      cancel: () => {
        throw new ConnectError("The voucher has already been collected.", Code.FailedPrecondition);
      },
    });
    const dialog = await openRow(user, "Sipho Dlamini");
    await user.click(within(dialog).getByRole("button", { name: "Cancel voucher" }));
    await user.click(within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Yes, cancel voucher" }));
    expect(await screen.findByText("Cancel failed")).toBeInTheDocument();
    expect(screen.getByText("The voucher has already been collected.")).toBeInTheDocument();
  });
});

describe("recent transactions, live", () => {
  it("refreshes the rows when the live stream reports a transfer update", async () => {
    const live = liveFeed();
    const transfer = makeTransfer({ status: TransferStatus.PROCESSING });
    const { setTransfers } = renderDashboard([transfer], { live });
    const recent = await screen.findByRole("region", { name: "Recent Transactions" });
    expect(await within(recent).findByRole("img", { name: "Processing" })).toBeInTheDocument();

    await new Promise((resolve) => setTimeout(resolve, 50));
    const done = completed(transfer);
    setTransfers([done]);
    live.push({ cursor: "1", event: { case: "transferUpdated", value: { transfer: done } } });
    expect(await within(recent).findByRole("img", { name: "Completed" })).toBeInTheDocument();
  });
});

describe("transaction details dialog, with credit", () => {
  it("shows the credit applied and what the card was charged, when credit paid part", async () => {
    const transfer = completed(makeTransfer({ amountCents: 15000n, feeCents: 1140n, totalAmountCents: 16140n, creditAppliedCents: 5000n, cardChargeCents: 11140n }));
    const { user } = renderDashboard([transfer]);
    const dialog = await openRow(user, "Sipho Dlamini");
    expect(term(dialog, "Credit applied")).toHaveTextContent("−R50,00");
    expect(term(dialog, "Charged to your card")).toHaveTextContent("R111,40");
  });

  it("says nothing of credit for a transfer paid by card alone", async () => {
    const transfer = completed(makeTransfer({ amountCents: 15000n, feeCents: 1140n, totalAmountCents: 16140n, cardChargeCents: 16140n }));
    const { user } = renderDashboard([transfer]);
    const dialog = await openRow(user, "Sipho Dlamini");
    expect(within(dialog).queryByText("Credit applied")).not.toBeInTheDocument();
  });
});
