import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { configure, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { Bank, CollectionStatus, RefundStatus, TransfersService, VoucherSchema, WithdrawalLocationSchema } from "@/gen/thumela/bff/v1/bff_pb";
import type { ChangeRecipientPhoneRequest, ResendVoucherRequest, Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";
import { completed, makeTransfer, withChanges, withVoucher } from "../test-utils";

// The first render of a lazy route transforms its modules: allow for a slow, busy machine.
configure({ asyncUtilTimeout: 4000 });
vi.setConfig({ testTimeout: 20_000 });

/** HH:MM in Johannesburg, as the screens tell the time. */
const saClock = new Intl.DateTimeFormat("en-ZA", { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: "Africa/Johannesburg" });

function voucher(init: MessageInitShape<typeof VoucherSchema>) {
  return create(VoucherSchema, { number: "4820193746", resendsLeft: 3, phoneChangesLeft: 3, ...init });
}

/** R500.00 to Thandi Mokoena at FNB, completed, the voucher awaiting collection. */
function awaiting(init: MessageInitShape<typeof VoucherSchema> = {}): Transfer {
  return completed(makeTransfer({ recipientName: "Thandi Mokoena", bank: Bank.FNB, amountCents: 50000n, totalAmountCents: 51245n }), {
    refundStatus: RefundStatus.NONE,
    voucher: voucher({
      collectionStatus: CollectionStatus.AWAITING_COLLECTION,
      expiresAt: timestampFromMs(Date.now() + 7 * 86_400_000),
      ...init,
    }),
  });
}

interface Fakes {
  resend?: (request: ResendVoucherRequest) => Transfer | Promise<Transfer>;
  change?: (request: ChangeRecipientPhoneRequest) => Transfer | Promise<Transfer>;
}

/** The dashboard with `transfer` as its one row; ListTransfers answers what the fakes last returned. */
function renderDashboard(transfer: Transfer, fakes: Fakes = {}) {
  let current = transfer;
  const calls = { resend: [] as ResendVoucherRequest[], change: [] as ChangeRecipientPhoneRequest[] };
  const utils = renderApp("/dashboard", {
    session: SIGNED_IN,
    routes: (r) => {
      r.rpc(TransfersService.method.listTransfers, () => ({ transfers: [current], totalCount: 1 }));
      r.rpc(TransfersService.method.getTransfer, () => ({ transfer: current }));
      r.rpc(TransfersService.method.resendVoucher, async (request) => {
        calls.resend.push(request);
        current = await fakes.resend!(request);
        return { transfer: current };
      });
      r.rpc(TransfersService.method.changeRecipientPhone, async (request) => {
        calls.change.push(request);
        current = await fakes.change!(request);
        return { transfer: current };
      });
    },
  });
  return { ...utils, calls };
}

async function openDialog(user: ReturnType<typeof renderApp>["user"]) {
  const recent = await screen.findByRole("region", { name: "Recent Transactions" });
  await user.click(await within(recent).findByRole("button", { name: /Thandi Mokoena/ }));
  return screen.findByRole("dialog", { name: "Transaction Details" });
}

const term = (dialog: HTMLElement, name: string) => within(dialog).getByText(name, { selector: "dt" }).nextElementSibling as HTMLElement;

describe("transaction details: the voucher", () => {
  it("awaiting: says where and how the cash is collected, and when the voucher expires", async () => {
    const { user } = renderDashboard(awaiting());
    const dialog = await openDialog(user);
    expect(term(dialog, "Status")).toHaveTextContent(/COMPLETED\s*Awaiting collection · expires \w{3} \d{1,2} \w{3}/);
    expect(within(dialog).getByText("Collect at any FNB ATM with the voucher number, PIN and phone number.")).toBeInTheDocument();
    expect(term(dialog, "PIN")).toHaveTextContent("Sent by SMS with the voucher number");
  });

  it("a PIN the sender chose is said to be theirs", async () => {
    const { user } = renderDashboard(awaiting({ pinChosenBySender: true }));
    const dialog = await openDialog(user);
    expect(term(dialog, "PIN")).toHaveTextContent("Chosen by you: give it to Thandi Mokoena yourself");
  });

  it("collected: where and when, and nothing left to resend or change", async () => {
    const at = Date.now() - 60_000;
    const transfer = withChanges(awaiting(), {
      voucher: voucher({
        collectionStatus: CollectionStatus.COLLECTED,
        collectedAt: timestampFromMs(at),
        collectedAtLocation: "FNB ATM Sandton City",
      }),
    });
    const { user } = renderDashboard(transfer);
    const dialog = await openDialog(user);
    expect(term(dialog, "Status")).toHaveTextContent(`Collected at FNB ATM Sandton City, ${saClock.format(at)}`);
    // Where the cash was withdrawn, not the planned 'Nearest ATM' above 'Collected at …'.
    expect(term(dialog, "Withdrawal Location")).toHaveTextContent(/^FNB ATM Sandton City$/);
    expect(within(dialog).queryByRole("button", { name: "Resend SMS" })).not.toBeInTheDocument();
    expect(within(dialog).queryByRole("button", { name: "Change phone number" })).not.toBeInTheDocument();
    expect(within(dialog).queryByRole("button", { name: "Cancel voucher" })).not.toBeInTheDocument();
  });

  it("awaiting: the withdrawal location is the one chosen when sending", async () => {
    const { user } = renderDashboard(awaiting());
    const dialog = await openDialog(user);
    expect(term(dialog, "Withdrawal Location")).toHaveTextContent(/^Nearest ATM$/);
  });

  it("collected away from the place the sender named: the ATM that paid out, the named place labelled as their choice", async () => {
    const named = withChanges(awaiting(), {
      withdrawalLocation: create(WithdrawalLocationSchema, { name: "Rosebank Mall", type: "param" }),
    });
    const transfer = withChanges(named, {
      voucher: voucher({ collectionStatus: CollectionStatus.COLLECTED, collectedAtLocation: "FNB ATM Sandton City" }),
    });
    const { user } = renderDashboard(transfer);
    const dialog = await openDialog(user);
    expect(term(dialog, "Withdrawal Location")).toHaveTextContent(/^FNB ATM Sandton City\s*Chosen when sending: Rosebank Mall$/);
    expect(term(dialog, "Status")).toHaveTextContent("Collected at FNB ATM Sandton City");
  });

  it("collected at an ATM the server did not name: the bank's ATM, not the planned 'Nearest ATM'", async () => {
    const transfer = withChanges(awaiting(), { voucher: voucher({ collectionStatus: CollectionStatus.COLLECTED }) });
    const { user } = renderDashboard(transfer);
    const dialog = await openDialog(user);
    expect(term(dialog, "Withdrawal Location")).toHaveTextContent(/^FNB ATM$/);
  });

  it.each([
    [RefundStatus.PENDING, "Cancelled · refund pending", "R512,45 is being refunded to your card."],
    [RefundStatus.REFUNDED, "Cancelled · refunded", "R512,45 was refunded to your card."],
  ])("cancelled, refund %s: %s, and the status is not a green success", async (refund, label, text) => {
    const transfer = withChanges(awaiting(), {
      refundStatus: refund,
      voucher: voucher({ collectionStatus: CollectionStatus.CANCELLED }),
    });
    const { user } = renderDashboard(transfer);
    const dialog = await openDialog(user);
    expect(term(dialog, "Status")).toHaveTextContent(label);
    expect(term(dialog, "Refund")).toHaveTextContent(text);
    expect(within(term(dialog, "Status")).getByText("COMPLETED")).not.toHaveClass("text-emerald-700");
  });
});

describe("transaction details: a voucher locked at the ATM", () => {
  it("says until when, why, and that a resend gives a new voucher now; a resend's answer clears it", async () => {
    const until = Date.now() + 23 * 3_600_000;
    const before = awaiting({ lockedUntil: timestampFromMs(until) });
    const { user } = renderDashboard(before, { resend: () => withVoucher(before, { number: "5930481726", resendsLeft: 2, lockedUntil: undefined }) });
    const dialog = await openDialog(user);
    const notice = within(dialog).getByRole("status");
    expect(notice).toHaveTextContent(
      /^Locked until .+: a wrong PIN or phone number was typed 5 times at an ATM\. To let Thandi Mokoena collect now, resend the SMS for a new voucher number\.$/,
    );
    expect(within(notice).getByText(/./, { selector: "time" })).toHaveAttribute("dateTime", new Date(until).toISOString());

    await user.click(within(dialog).getByRole("button", { name: "Resend SMS" }));
    await user.click(within(dialog).getByRole("button", { name: "Send new voucher" }));
    expect(await within(dialog).findByText("5930481726")).toBeInTheDocument();
    expect(within(dialog).queryByText(/^Locked until/)).not.toBeInTheDocument();
  });

  it("says nothing once the lock has passed", async () => {
    const { user } = renderDashboard(awaiting({ lockedUntil: timestampFromMs(Date.now() - 60_000) }));
    const dialog = await openDialog(user);
    expect(within(dialog).getByText(/^Collect at any FNB ATM/)).toBeInTheDocument();
    expect(within(dialog).queryByText(/^Locked until/)).not.toBeInTheDocument();
  });
});

describe("transaction details: resend the voucher SMS", () => {
  it("shows the resends left, re-issues the voucher, says so, and shows the new number", async () => {
    let release: () => void = () => {};
    const before = awaiting({ resendsLeft: 2 });
    const { user, calls } = renderDashboard(before, {
      resend: async () => {
        await new Promise<void>((resolve) => (release = resolve));
        return withVoucher(before, { number: "5930481726", resendsLeft: 1 });
      },
    });
    const dialog = await openDialog(user);
    const resend = within(dialog).getByRole("button", { name: "Resend SMS" });
    expect(resend).toHaveAccessibleDescription("2 resends left");
    expect(resend).toHaveAttribute("aria-expanded", "false");
    await user.click(resend);

    // Nothing is sent before the sender confirms, told that the old number stops working.
    expect(resend).toHaveAttribute("aria-expanded", "true");
    const confirm = within(dialog).getByRole("form", { name: "Resend the voucher SMS" });
    expect(confirm).toHaveAccessibleDescription(
      "Thandi Mokoena gets a new voucher number and PIN by SMS on +27 82 123 4567. The old voucher number stops working at once.",
    );
    expect(within(confirm).getByRole("button", { name: "Cancel" })).toHaveFocus();
    expect(calls.resend).toHaveLength(0);
    await user.click(within(confirm).getByRole("button", { name: "Send new voucher" }));

    const busy = within(confirm).getByRole("button", { name: "Sending..." });
    expect(busy).toHaveAttribute("aria-disabled", "true");
    expect(busy).toHaveAttribute("aria-busy", "true");
    // The button stays, and so does the keyboard's place on it (a disabled button lost it).
    expect(busy).toHaveFocus();
    await user.click(busy);
    release();

    await expectToast(
      "Voucher SMS sent again",
      "Thandi Mokoena gets a new voucher number and PIN by SMS on +27 82 123 4567. The old voucher number no longer works.",
    );
    expect(calls.resend).toEqual([expect.objectContaining({ id: before.id })]);
    expect(await within(dialog).findByText("5930481726")).toBeInTheDocument();
    expect(within(dialog).queryByRole("form", { name: "Resend the voucher SMS" })).not.toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Resend SMS" })).toHaveAccessibleDescription("1 resend left");
    await waitFor(() => expect(within(dialog).getByRole("button", { name: "Resend SMS" })).toHaveFocus());
  });

  it("Cancel or Escape closes the confirmation, sends nothing and keeps the dialog open", async () => {
    const { user, calls } = renderDashboard(awaiting({ pinChosenBySender: true }));
    const dialog = await openDialog(user);
    const resend = within(dialog).getByRole("button", { name: "Resend SMS" });
    await user.click(resend);
    // The sender chose the PIN: only the number is new.
    expect(within(dialog).getByRole("form", { name: "Resend the voucher SMS" })).toHaveAccessibleDescription(
      "Thandi Mokoena gets a new voucher number by SMS on +27 82 123 4567. The old voucher number stops working at once.",
    );
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(within(dialog).queryByRole("form", { name: "Resend the voucher SMS" })).not.toBeInTheDocument();
    await waitFor(() => expect(resend).toHaveFocus());

    await user.keyboard("{Enter}");
    expect(within(dialog).getByRole("form", { name: "Resend the voucher SMS" })).toBeInTheDocument();
    await user.keyboard("{Escape}");
    expect(within(dialog).queryByRole("form", { name: "Resend the voucher SMS" })).not.toBeInTheDocument();
    expect(dialog).toBeInTheDocument();
    await waitFor(() => expect(resend).toHaveFocus());
    expect(calls.resend).toHaveLength(0);
  });

  it("after the last resend the focus stays in the voucher's section, the button now disabled", async () => {
    const before = awaiting({ resendsLeft: 1 });
    const { user } = renderDashboard(before, { resend: () => withVoucher(before, { number: "5930481726", resendsLeft: 0 }) });
    const dialog = await openDialog(user);
    await user.click(within(dialog).getByRole("button", { name: "Resend SMS" }));
    await user.click(within(dialog).getByRole("button", { name: "Send new voucher" }));
    expect(await within(dialog).findByText("5930481726")).toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Resend SMS" })).toBeDisabled();
    await waitFor(() => expect(within(dialog).getByRole("region", { name: "Voucher SMS" })).toHaveFocus());
  });

  it("is disabled with no resends left", async () => {
    const { user } = renderDashboard(awaiting({ resendsLeft: 0 }));
    const dialog = await openDialog(user);
    const resend = within(dialog).getByRole("button", { name: "Resend SMS" });
    expect(resend).toBeDisabled();
    expect(resend).toHaveAccessibleDescription("No resends left");
  });

  it("says why a resend was refused", async () => {
    const { user } = renderDashboard(awaiting(), {
      resend: () => {
        throw new ConnectError("The voucher has already been collected.", Code.FailedPrecondition);
      },
    });
    const dialog = await openDialog(user);
    await user.click(within(dialog).getByRole("button", { name: "Resend SMS" }));
    await user.click(within(dialog).getByRole("button", { name: "Send new voucher" }));
    await expectToast("Resend failed", "The voucher has already been collected.");
    // The confirmation stays, to try again or cancel.
    expect(within(dialog).getByRole("button", { name: "Send new voucher" })).toBeInTheDocument();
  });
});

describe("transaction details: change the phone number", () => {
  it("checks the number first, then sends the voucher to it and says so", async () => {
    const before = awaiting({ pinChosenBySender: true });
    const { user, calls } = renderDashboard(before, {
      change: () =>
        withChanges(withVoucher(before, { number: "6041592837", phoneChangesLeft: 2 }), {
          recipientPhone: "+27835550101",
          updatedAt: timestampFromMs(Date.now()),
        }),
    });
    const dialog = await openDialog(user);
    const toggle = within(dialog).getByRole("button", { name: "Change phone number" });
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(toggle).toHaveAccessibleDescription("3 changes left");
    await user.click(toggle);
    expect(toggle).toHaveAttribute("aria-expanded", "true");

    const form = within(dialog).getByRole("form", { name: "Change phone number" });
    const phone = within(form).getByLabelText("New phone number");
    expect(phone).toHaveAttribute("placeholder", "+27 XX XXX XXXX");
    expect(phone).toHaveFocus();

    await user.type(phone, "011 555 0101");
    await user.click(within(form).getByRole("button", { name: "Send to this number" }));
    expect(await within(form).findByText("Please enter a valid South African mobile number.")).toBeInTheDocument();
    expect(phone).toHaveAttribute("aria-invalid", "true");

    await user.clear(phone);
    await user.type(phone, "082 123 4567");
    await user.click(within(form).getByRole("button", { name: "Send to this number" }));
    expect(await within(form).findByText(/This is already Thandi Mokoena's number/)).toBeInTheDocument();
    expect(calls.change).toHaveLength(0);

    await user.clear(phone);
    await user.type(phone, "083 555 0101");
    await user.click(within(form).getByRole("button", { name: "Send to this number" }));
    // The sender chose the PIN: only the number is new.
    await expectToast(
      "Phone number changed",
      "The voucher was sent to +27 83 555 0101 with a new voucher number. The old voucher number no longer works.",
    );
    expect(calls.change).toEqual([expect.objectContaining({ id: before.id, recipientPhone: "083 555 0101" })]);
    expect(within(dialog).queryByRole("form", { name: "Change phone number" })).not.toBeInTheDocument();
    expect(await within(dialog).findByText("6041592837")).toBeInTheDocument();
    expect(term(dialog, "Recipient")).toHaveTextContent("+27 83 555 0101");
  });

  it("puts the server's word on the number under the field", async () => {
    const { user } = renderDashboard(awaiting(), {
      change: () => {
        throw new ConnectError("This number cannot receive SMS.", Code.InvalidArgument);
      },
    });
    const dialog = await openDialog(user);
    await user.click(within(dialog).getByRole("button", { name: "Change phone number" }));
    const form = within(dialog).getByRole("form", { name: "Change phone number" });
    await user.type(within(form).getByLabelText("New phone number"), "083 555 0101");
    await user.click(within(form).getByRole("button", { name: "Send to this number" }));
    expect(await within(form).findByText("This number cannot receive SMS.")).toBeInTheDocument();
  });

  it("Cancel closes the form; with no changes left the button is disabled", async () => {
    const { user, unmount } = renderDashboard(awaiting());
    let dialog = await openDialog(user);
    await user.click(within(dialog).getByRole("button", { name: "Change phone number" }));
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(within(dialog).queryByRole("form", { name: "Change phone number" })).not.toBeInTheDocument();
    unmount();

    renderDashboard(awaiting({ phoneChangesLeft: 0 }));
    dialog = await openDialog(user);
    expect(within(dialog).getByRole("button", { name: "Change phone number" })).toBeDisabled();
  });

  it("Escape in the form closes the form, not the dialog, and a second Escape closes the dialog", async () => {
    const { user } = renderDashboard(awaiting());
    const dialog = await openDialog(user);
    const toggle = within(dialog).getByRole("button", { name: "Change phone number" });
    await user.click(toggle);
    await user.type(within(dialog).getByLabelText("New phone number"), "083");
    await user.keyboard("{Escape}");
    expect(within(dialog).queryByRole("form", { name: "Change phone number" })).not.toBeInTheDocument();
    expect(dialog).toBeInTheDocument();
    await waitFor(() => expect(toggle).toHaveFocus());
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    await user.keyboard("{Escape}");
    await waitFor(() => expect(dialog).not.toBeInTheDocument());
  });
});
