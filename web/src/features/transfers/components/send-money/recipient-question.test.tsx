import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { configure, screen, waitFor } from "@testing-library/react";
import type { UserEvent } from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PaymentMethodsService, TransferStatus, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { CreateTransferRequest } from "@/gen/thumela/bff/v1/bff_pb";
import { errorWithDetails } from "@/test/error-details";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { isRecipientConfirmationRequired, recipientQuestion } from "@/lib/recipient-confirmation";
import { forgetStepUp, isStepUpRequired, rememberStepUp } from "@/lib/step-up";
import { BANKS, CARDS, completed, makeTransfer } from "../../test-utils";

configure({ asyncUtilTimeout: 4000 });
vi.setConfig({ testTimeout: 20_000 });

const KNOWN = "+27821234567"; // paid before: in the completed history
const QUESTION =
  "Do you know Sipho Dlamini personally? Never send money to someone you have only met online, or to someone who says they are from a bank or the police.";

function errorInfo(reason: string) {
  const value = new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .string(reason)
    .tag(2, WireType.LengthDelimited)
    .string("transfers.thumela.co.za")
    .finish();
  return errorWithDetails("Please confirm that you know the recipient personally.", Code.FailedPrecondition, {
    type: "google.rpc.ErrorInfo",
    value,
  });
}

interface Options {
  /** ListTransfers fails: the page cannot predict, the server's refusal is the backstop. */
  historyDown?: boolean;
}

function backend(options: Options = {}) {
  const calls = { creates: [] as CreateTransferRequest[] };
  const routes = (r: ConnectRouter) => {
    r.rpc(TransfersService.method.listBanks, () => ({ banks: BANKS }));
    r.rpc(TransfersService.method.quoteFee, (req) => ({ quote: { amountCents: req.amountCents, totalAmountCents: req.amountCents } }));
    r.rpc(PaymentMethodsService.method.listPaymentMethods, () => ({ paymentMethods: CARDS }));
    r.rpc(TransfersService.method.listTransfers, (req) => {
      if (options.historyDown) throw new ConnectError("unavailable", Code.Unavailable);
      const paid = req.query === KNOWN && req.status === TransferStatus.COMPLETED;
      return { transfers: paid ? [completed(makeTransfer({ recipientPhone: KNOWN }))] : [], totalCount: paid ? 1 : 0 };
    });
    r.rpc(TransfersService.method.createTransfer, (req) => {
      calls.creates.push(req);
      // The server's rule: a phone never paid needs the sender's answer.
      if (req.recipientPhone.replace(/\D/g, "") !== "0821234567" && !req.recipientKnownConfirmed) {
        throw errorInfo("RECIPIENT_CONFIRMATION_REQUIRED");
      }
      return { transfer: makeTransfer({ recipientPhone: req.recipientPhone, amountCents: req.amountCents }) };
    });
  };
  return { calls, routes };
}

function renderWizard(options: Options = {}) {
  const fake = backend(options);
  return { ...renderApp("/send-money", { session: SIGNED_IN, routes: fake.routes }), calls: fake.calls };
}

const next = () => screen.getByRole("button", { name: "Next" });
const sendMoney = () => screen.getByRole("button", { name: "Send Money" });
const question = () => screen.queryByText(QUESTION);
const tick = () => screen.getByRole("checkbox", { name: "Yes, I know Sipho Dlamini personally" });

async function reachConfirmation(user: UserEvent, phone: string) {
  await user.type(await screen.findByLabelText("Amount to Send (ZAR)"), "150");
  await user.click(next());
  await user.type(await screen.findByLabelText("Recipient Name"), "Sipho Dlamini");
  await user.type(screen.getByLabelText("Recipient Phone Number"), phone);
  await screen.findByRole("option", { name: "Capitec" });
  await user.selectOptions(screen.getByLabelText("Bank"), "Capitec");
  await user.click(next());
  await screen.findByRole("radio", { name: /Travel Mastercard/ });
  await user.click(next());
  await screen.findByRole("heading", { name: "Confirm your transfer" });
}

describe("the first-payment question", () => {
  // Stepped up a moment ago: these tests are about the question, not "Confirm it's you".
  beforeEach(() => rememberStepUp(Date.now() + 5 * 60_000));
  afterEach(() => forgetStepUp());

  it("asks before a first payment to a phone: Send Money stays disabled until ticked, and the answer is sent", async () => {
    const { user, calls } = renderWizard();
    await reachConfirmation(user, "083 765 4321");
    expect(await screen.findByText(QUESTION)).toBeVisible();
    expect(sendMoney()).toBeDisabled();
    // Enter does not go round the disabled button.
    tick().focus();
    await user.keyboard("{Enter}");
    expect(tick()).not.toBeChecked();
    expect(calls.creates).toHaveLength(0);

    await user.click(tick());
    expect(tick()).toBeChecked();
    expect(sendMoney()).toBeEnabled();
    // Unticked again, it is disabled again.
    await user.click(tick());
    expect(sendMoney()).toBeDisabled();
    await user.click(tick());
    await user.click(sendMoney());
    await screen.findByText("Transfer initiated");
    expect(calls.creates).toHaveLength(1);
    expect(calls.creates[0].recipientKnownConfirmed).toBe(true);
  });

  it("does not ask for a phone the sender has paid before", async () => {
    const { user, calls } = renderWizard();
    await reachConfirmation(user, "082 123 4567");
    await waitFor(() => expect(sendMoney()).toBeEnabled());
    expect(question()).toBeNull();
    await user.click(sendMoney());
    await screen.findByText("Transfer initiated");
    expect(calls.creates[0].recipientKnownConfirmed).toBe(false);
  });

  it("asks again for another recipient after going back", async () => {
    const { user } = renderWizard();
    await reachConfirmation(user, "083 765 4321");
    await screen.findByText(QUESTION);
    await user.click(tick());
    // Back to the recipient step: another phone never paid is another question.
    await user.click(screen.getByRole("button", { name: "Back" }));
    await user.click(screen.getByRole("button", { name: "Back" }));
    const phone = await screen.findByLabelText("Recipient Phone Number");
    await user.clear(phone);
    await user.type(phone, "084 555 0101");
    await user.click(next());
    await screen.findByRole("radio", { name: /Travel Mastercard/ });
    await user.click(next());
    await screen.findByText(QUESTION);
    expect(tick()).not.toBeChecked();
    expect(sendMoney()).toBeDisabled();
  });

  it("asks when the server says so (the history could not be read), then sends the answer under a new key", async () => {
    const { user, calls } = renderWizard({ historyDown: true });
    await reachConfirmation(user, "083 765 4321");
    await waitFor(() => expect(sendMoney()).toBeEnabled());
    expect(question()).toBeNull();
    await user.click(sendMoney());
    expect(await screen.findByText(QUESTION)).toBeVisible();
    expect(await screen.findByText("Do you know Sipho Dlamini personally?")).toBeVisible(); // the toast
    expect(sendMoney()).toBeDisabled();
    await user.click(tick());
    await user.click(sendMoney());
    await screen.findByText("Transfer initiated");
    expect(calls.creates).toHaveLength(2);
    expect(calls.creates[0].recipientKnownConfirmed).toBe(false);
    expect(calls.creates[1].recipientKnownConfirmed).toBe(true);
    expect(calls.creates[1].idempotencyKey).not.toBe(calls.creates[0].idempotencyKey);
  });
});

describe("RECIPIENT_CONFIRMATION_REQUIRED", () => {
  it("is told apart from the step-up's refusal", () => {
    expect(isRecipientConfirmationRequired(errorInfo("RECIPIENT_CONFIRMATION_REQUIRED"))).toBe(true);
    expect(isStepUpRequired(errorInfo("RECIPIENT_CONFIRMATION_REQUIRED"))).toBe(false);
    expect(isRecipientConfirmationRequired(errorInfo("STEP_UP_REQUIRED"))).toBe(false);
    expect(isRecipientConfirmationRequired(new Error("RECIPIENT_CONFIRMATION_REQUIRED"))).toBe(false);
  });

  it("words the question as the issue does", () => {
    expect(recipientQuestion("Sipho Dlamini")).toBe(QUESTION);
  });
});
