import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { screen, within } from "@testing-library/react";
import type { UserEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import {
  Bank,
  PaymentMethodsService,
  RecipientSchema,
  RecipientsService,
  TransferStatus,
  TransfersService,
} from "@/gen/thumela/bff/v1/bff_pb";
import type { CreateTransferRequest, Recipient } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { BANKS, CARDS, completed, makeTransfer } from "../../test-utils";

const NALEDI = create(RecipientSchema, {
  id: "r-1",
  name: "Naledi Mokoena",
  phone: "+27835550101",
  bank: Bank.CAPITEC,
  lastPaidAt: timestampFromMs(Date.now() - 3_600_000),
});
const SIPHO = create(RecipientSchema, { id: "r-2", name: "Sipho Dlamini", phone: "+27821234567", bank: Bank.FNB });

function renderWizard(path: string, saved: Recipient[]) {
  const creates: CreateTransferRequest[] = [];
  const routes = (r: ConnectRouter) => {
    r.rpc(TransfersService.method.listBanks, () => ({ banks: BANKS }));
    r.rpc(TransfersService.method.quoteFee, (request) => ({
      quote: { amountCents: request.amountCents, totalAmountCents: request.amountCents, totalFeeCents: 0n },
    }));
    r.rpc(PaymentMethodsService.method.listPaymentMethods, () => ({ paymentMethods: CARDS }));
    // Every phone has been paid before: no step-up or first-payment question here.
    r.rpc(TransfersService.method.listTransfers, (request) => ({
      transfers: request.query ? [completed(makeTransfer({ recipientPhone: request.query }))] : [],
      totalCount: request.query ? 1 : 0,
    }));
    r.rpc(TransfersService.method.createTransfer, (request) => {
      creates.push(request);
      return {
        transfer: makeTransfer({
          id: "7f3a9c21-5b6d-4e8f-9a0b-1c2d3e4f5a6b",
          recipientName: request.recipientName,
          recipientPhone: request.recipientPhone,
          amountCents: request.amountCents,
          status: TransferStatus.PENDING,
        }),
      };
    });
    r.rpc(TransfersService.method.getTransfer, () => ({ transfer: makeTransfer({ status: TransferStatus.PENDING }) }));
    r.rpc(RecipientsService.method.listRecipients, () => ({ recipients: saved }));
  };
  return { ...renderApp(path, { session: SIGNED_IN, routes }), creates };
}

async function toRecipientStep(user: UserEvent) {
  await user.type(await screen.findByLabelText("Amount to Send (ZAR)"), "150");
  await user.click(screen.getByRole("button", { name: "Next" }));
  await screen.findByRole("heading", { name: "Who are you sending to?" });
}

/** From the recipient step through to Send Money (the default card stays selected). */
async function sendFromRecipientStep(user: UserEvent) {
  await user.click(screen.getByRole("button", { name: "Next" }));
  await screen.findByRole("radio", { name: /Travel Mastercard/ });
  await user.click(screen.getByRole("button", { name: "Next" }));
  await screen.findByRole("heading", { name: "Confirm your transfer" });
  // A first-payment question, when the confirmation asks it, is answered yes.
  const known = screen.queryByRole("checkbox", { name: /personally/ });
  if (known) await user.click(known);
  await user.click(screen.getByRole("button", { name: "Send Money" }));
}

describe("the wizard's saved recipients", () => {
  it("leave the focus to 'Recipient Name': typing a name with a space picks no saved recipient", async () => {
    const { user } = renderWizard("/send-money", [NALEDI, SIPHO]);
    await user.type(await screen.findByLabelText("Amount to Send (ZAR)"), "150{Enter}");
    await screen.findByRole("list", { name: "Saved recipients" });
    const name = screen.getByLabelText("Recipient Name");
    // The cards come first in the step, but the step's first field is the name (F3).
    await vi.waitFor(() => expect(name).toHaveFocus());
    await user.keyboard("Nomsa Zulu");
    expect(name).toHaveValue("Nomsa Zulu");
    expect(screen.getByLabelText("Recipient Phone Number")).toHaveValue("");
    for (const card of within(screen.getByRole("list", { name: "Saved recipients" })).getAllByRole("button")) {
      expect(card).toHaveAttribute("aria-pressed", "false");
    }
  });

  it("offers them first, most recently paid first; picking one fills the name, phone and bank", async () => {
    const { user, creates } = renderWizard("/send-money", [NALEDI, SIPHO]);
    await toRecipientStep(user);
    const list = await screen.findByRole("list", { name: "Saved recipients" });
    const buttons = within(list).getAllByRole("button");
    expect(buttons.map((b) => b.textContent)).toEqual([
      expect.stringContaining("Naledi Mokoena"),
      expect.stringContaining("Sipho Dlamini"),
    ]);
    expect(buttons[0]).toHaveTextContent("+27 83 555 0101 · Capitec");

    await screen.findByRole("option", { name: "Capitec" });
    await user.click(buttons[0]);
    expect(screen.getByLabelText("Recipient Name")).toHaveValue("Naledi Mokoena");
    expect(screen.getByLabelText("Recipient Phone Number")).toHaveValue("+27 83 555 0101");
    expect(screen.getByLabelText("Bank")).toHaveValue(String(Bank.CAPITEC));
    expect(buttons[0]).toHaveAttribute("aria-pressed", "true");

    const save = screen.getByRole("checkbox", { name: "Save Naledi Mokoena for next time" });
    expect(save).toBeChecked();
    await sendFromRecipientStep(user);
    await vi.waitFor(() => expect(creates).toHaveLength(1));
    expect(creates[0]).toMatchObject({ recipientName: "Naledi Mokoena", bank: Bank.CAPITEC, doNotSaveRecipient: false });
  });

  it("sends do_not_save_recipient when the sender unticks 'Save {name} for next time'", async () => {
    const { user, creates } = renderWizard("/send-money", []);
    await toRecipientStep(user);
    expect(screen.queryByRole("list", { name: "Saved recipients" })).not.toBeInTheDocument();
    await user.type(screen.getByLabelText("Recipient Name"), "Thabo Nkosi");
    await user.type(screen.getByLabelText("Recipient Phone Number"), "082 123 4567");
    await screen.findByRole("option", { name: "FNB" });
    await user.selectOptions(screen.getByLabelText("Bank"), "FNB");
    const save = screen.getByRole("checkbox", { name: "Save Thabo Nkosi for next time" });
    await user.click(save);
    expect(save).not.toBeChecked();
    await sendFromRecipientStep(user);
    await vi.waitFor(() => expect(creates).toHaveLength(1));
    expect(creates[0]).toMatchObject({ recipientName: "Thabo Nkosi", doNotSaveRecipient: true });
  });

  it("Send Similar's link prefers the saved recipient's current name and bank for the phone", async () => {
    const { user } = renderWizard(`/send-money?amount=150&recipient=Sipho&phone=%2B27821234567&bank=${Bank.ABSA}`, [NALEDI, SIPHO]);
    await screen.findByLabelText("Amount to Send (ZAR)");
    await user.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByRole("heading", { name: "Who are you sending to?" });
    await screen.findByRole("option", { name: "FNB" });
    await vi.waitFor(() => expect(screen.getByLabelText("Recipient Name")).toHaveValue("Sipho Dlamini"));
    expect(screen.getByLabelText("Bank")).toHaveValue(String(Bank.FNB));
    expect(screen.getByLabelText("Recipient Phone Number")).toHaveValue("+27 82 123 4567");
  });

  it("keeps the link's details when no saved recipient has the phone", async () => {
    const { user } = renderWizard(`/send-money?amount=150&recipient=Lerato&phone=0841234567&bank=${Bank.ABSA}`, [NALEDI]);
    await screen.findByLabelText("Amount to Send (ZAR)");
    await user.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByRole("list", { name: "Saved recipients" });
    await screen.findByRole("option", { name: "ABSA" });
    expect(screen.getByLabelText("Recipient Name")).toHaveValue("Lerato");
    expect(screen.getByLabelText("Bank")).toHaveValue(String(Bank.ABSA));
  });
});
