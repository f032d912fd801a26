import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { configure, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { CollectionStatus, RefundStatus, TransferStatus, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { completed, makeTransfer, withChanges } from "../test-utils";

configure({ asyncUtilTimeout: 4000 });
vi.setConfig({ testTimeout: 20_000 });

const awaiting = [
  completed(makeTransfer({ recipientName: "Sipho Dlamini", amountCents: 15000n, totalAmountCents: 16140n })),
  completed(makeTransfer({ recipientName: "Lerato Nkosi", amountCents: 20000n, totalAmountCents: 21290n })),
];

function cancelledCopy(transfer: (typeof awaiting)[number]) {
  const copy = withChanges(transfer, { refundStatus: RefundStatus.PENDING, status: TransferStatus.COMPLETED });
  if (copy.voucher) copy.voucher.collectionStatus = CollectionStatus.CANCELLED;
  return copy;
}

interface Options {
  vouchers: number;
  /** FreezeVouchers fails. */
  fail?: boolean;
}

function backend({ vouchers, fail }: Options) {
  const calls = { freezes: 0, limits: 0 };
  let left = vouchers;
  const routes = (r: ConnectRouter) => {
    r.rpc(TransfersService.method.getLimits, () => {
      calls.limits += 1;
      return { limits: [], uncollectedVouchers: left, uncollectedCents: left === 0 ? 0n : 35000n };
    });
    r.rpc(TransfersService.method.freezeVouchers, () => {
      calls.freezes += 1;
      if (fail) throw new ConnectError("Freezing is not possible right now.", Code.FailedPrecondition);
      const cancelled = awaiting.slice(0, left).map(cancelledCopy);
      left = 0;
      return { cancelled, pausedSchedules: 2 };
    });
  };
  return { calls, routes };
}

function renderDashboard(options: Options) {
  const fake = backend(options);
  return { ...renderApp("/dashboard", { session: SIGNED_IN, routes: fake.routes }), calls: fake.calls };
}

const freezeButton = () => screen.findByRole("button", { name: "Freeze my vouchers" });

describe("Freeze my vouchers", () => {
  it("is disabled, with the reason, when no voucher awaits collection", async () => {
    renderDashboard({ vouchers: 0 });
    const button = await freezeButton();
    await waitFor(() => expect(button).toHaveAccessibleDescription("You have no vouchers waiting to be collected."));
    expect(button).toBeDisabled();
  });

  it("says what will happen, cancels every voucher on confirmation and says how many", async () => {
    const { user, calls } = renderDashboard({ vouchers: 2 });
    const button = await freezeButton();
    await waitFor(() => expect(button).toBeEnabled());
    expect(button).toHaveAccessibleDescription(/2 vouchers waiting to be collected \(R350,00\)/);

    // "Keep my vouchers" changes nothing.
    await user.click(button);
    let dialog = await screen.findByRole("alertdialog", { name: "Freeze all your vouchers?" });
    expect(dialog).toHaveTextContent("Every voucher that has not been collected yet (2 vouchers) will be cancelled at once.");
    expect(dialog).toHaveTextContent("Each is refunded in full, fee included, to the card that paid for it.");
    expect(dialog).toHaveTextContent("The recipients will no longer be able to collect the cash.");
    expect(dialog).toHaveTextContent(
      "Your scheduled sends are paused too, so no new voucher goes out. You can resume them on the Recipients page.",
    );
    await user.click(within(dialog).getByRole("button", { name: "Keep my vouchers" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
    expect(calls.freezes).toBe(0);
    expect(button).toHaveFocus();

    await user.click(button);
    dialog = await screen.findByRole("alertdialog", { name: "Freeze all your vouchers?" });
    await user.click(within(dialog).getByRole("button", { name: "Yes, freeze my vouchers" }));
    expect(await screen.findByText("2 vouchers cancelled")).toBeVisible();
    // The two totals, R161,40 and R212,90.
    expect(screen.getByText(/R374,30 will be refunded in full to your cards\. 2 scheduled sends paused\./)).toBeVisible();
    expect(calls.freezes).toBe(1);
    // The count is read again: nothing is left to freeze.
    await waitFor(() => expect(button).toBeDisabled());
    expect(button).toHaveAccessibleDescription("You have no vouchers waiting to be collected.");
  });

  it("says so when the freeze fails", async () => {
    const { user } = renderDashboard({ vouchers: 1, fail: true });
    const button = await freezeButton();
    await waitFor(() => expect(button).toBeEnabled());
    await user.click(button);
    const dialog = await screen.findByRole("alertdialog", { name: "Freeze all your vouchers?" });
    expect(dialog).toHaveTextContent("(1 voucher)");
    await user.click(within(dialog).getByRole("button", { name: "Yes, freeze my vouchers" }));
    expect(await screen.findByText("Freeze failed")).toBeVisible();
    expect(screen.getByText("Freezing is not possible right now.")).toBeVisible();
  });
});
