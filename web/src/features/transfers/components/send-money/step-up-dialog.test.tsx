import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { act, configure, screen, waitFor } from "@testing-library/react";
import type { UserEvent } from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PaymentMethodsService, SecurityService, TransferStatus, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { CreateTransferRequest, FinishStepUpRequest } from "@/gen/thumela/bff/v1/bff_pb";
import { errorWithDetails, retryInfoDetail } from "@/test/error-details";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { forgetStepUp, isStepUpRequired } from "@/lib/step-up";
import { BANKS, CARDS, completed, makeTransfer } from "../../test-utils";

const startAuthentication = vi.hoisted(() => vi.fn());
vi.mock("@simplewebauthn/browser", () => ({ startAuthentication }));

configure({ asyncUtilTimeout: 4000 });
vi.setConfig({ testTimeout: 20_000 });

const PASSWORD = "Correct-Horse-42";
const KNOWN = "+27821234567"; // paid before: in the completed history
const NEW = "+27837654321";

/** A google.rpc.ErrorInfo detail, as transfers answers a transfer that needs a step-up. */
function stepUpRequired() {
  const value = new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .string("STEP_UP_REQUIRED")
    .tag(2, WireType.LengthDelimited)
    .string("transfers.thumela.co.za")
    .finish();
  return errorWithDetails("Please confirm it's you before sending this money.", Code.FailedPrecondition, {
    type: "google.rpc.ErrorInfo",
    value,
  });
}

interface Options {
  passkey?: boolean;
  /** The server refuses the first create with STEP_UP_REQUIRED whatever the client predicted. */
  serverWantsStepUp?: boolean;
  /** FinishStepUp answers ResourceExhausted (rate limited). */
  limited?: boolean;
}

function backend(options: Options = {}) {
  const calls = { creates: [] as CreateTransferRequest[], finishes: [] as FinishStepUpRequest[], begins: 0, steppedUp: false };
  const routes = (r: ConnectRouter) => {
    r.rpc(TransfersService.method.listBanks, () => ({ banks: BANKS }));
    r.rpc(TransfersService.method.quoteFee, (req) => ({ quote: { amountCents: req.amountCents, totalAmountCents: req.amountCents } }));
    r.rpc(PaymentMethodsService.method.listPaymentMethods, () => ({ paymentMethods: CARDS }));
    r.rpc(TransfersService.method.listTransfers, (req) => {
      const paid = req.query === KNOWN && req.status === TransferStatus.COMPLETED;
      return { transfers: paid ? [completed(makeTransfer({ recipientPhone: KNOWN }))] : [], totalCount: paid ? 1 : 0 };
    });
    r.rpc(TransfersService.method.createTransfer, (req) => {
      calls.creates.push(req);
      if (options.serverWantsStepUp && !calls.steppedUp) throw stepUpRequired();
      return { transfer: makeTransfer({ recipientPhone: req.recipientPhone, amountCents: req.amountCents }) };
    });
    r.rpc(SecurityService.method.beginStepUp, () => {
      calls.begins += 1;
      return options.passkey
        ? { passkey: true, optionsJson: JSON.stringify({ challenge: "Y2hhbGxlbmdl", rpId: "localhost", userVerification: "required" }) }
        : { passkey: false };
    });
    r.rpc(SecurityService.method.finishStepUp, (req) => {
      calls.finishes.push(req);
      if (options.limited) throw errorWithDetails("Too many attempts.", Code.ResourceExhausted, retryInfoDetail(30));
      const ok =
        (req.proof.case === "password" && req.proof.value === PASSWORD) ||
        (req.proof.case === "passkeyCredentialJson" && JSON.parse(req.proof.value).id === "cred-1");
      if (!ok) throw errorWithDetails("Incorrect password. Please try again.", Code.InvalidArgument);
      calls.steppedUp = true;
      return { steppedUpUntil: timestampFromMs(Date.now() + 5 * 60_000) };
    });
  };
  return { calls, routes };
}

function renderWizard(path: string, options: Options = {}) {
  const fake = backend(options);
  return { ...renderApp(path, { session: SIGNED_IN, routes: fake.routes }), calls: fake.calls };
}

const next = () => screen.getByRole("button", { name: "Next" });

async function reachConfirmation(user: UserEvent, amount: string, phone: string) {
  await user.type(await screen.findByLabelText("Amount to Send (ZAR)"), amount);
  await user.click(next());
  await user.type(await screen.findByLabelText("Recipient Name"), "Sipho Dlamini");
  await user.type(screen.getByLabelText("Recipient Phone Number"), phone);
  await screen.findByRole("option", { name: "Capitec" });
  await user.selectOptions(screen.getByLabelText("Bank"), "Capitec");
  await user.click(next());
  await screen.findByRole("radio", { name: /Travel Mastercard/ });
  await user.click(next());
  await screen.findByRole("heading", { name: "Confirm your transfer" });
  // A first payment to a phone asks "Do you know … personally?" first (recipient-question.test.tsx).
  if (phone.replace(/\D/g, "") !== "0821234567") {
    await user.click(await screen.findByRole("checkbox", { name: "Yes, I know Sipho Dlamini personally" }));
  }
}

const sendMoney = () => screen.getByRole("button", { name: "Send Money" });
const initiated = () => screen.findByText("Transfer initiated");

describe("Confirm it's you before Send Money", () => {
  beforeEach(() => forgetStepUp());
  afterEach(() => {
    vi.unstubAllGlobals();
    startAuthentication.mockReset();
  });

  it("asks for the password for a new phone: Escape cancels, a wrong one shows an error, the right one sends", async () => {
    const { user, calls } = renderWizard("/send-money", {});
    await reachConfirmation(user, "150", "083 765 4321");
    await user.click(sendMoney());

    let dialog = await screen.findByRole("dialog", { name: "Confirm it's you" });
    const password = await screen.findByLabelText("Password");
    await waitFor(() => expect(password).toHaveFocus());
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(calls.creates).toHaveLength(0);
    await waitFor(() => expect(sendMoney()).toHaveFocus()); // focus goes back to what opened it

    await user.click(sendMoney());
    dialog = await screen.findByRole("dialog", { name: "Confirm it's you" });
    await user.click(screen.getByRole("button", { name: "Confirm and send" }));
    expect(await screen.findByText("Please enter your password.")).toBeInTheDocument();
    expect(calls.finishes).toHaveLength(0);

    await user.type(screen.getByLabelText("Password"), "wrong-password");
    await user.click(screen.getByRole("button", { name: "Confirm and send" }));
    expect(await screen.findByText("Incorrect password. Please try again.")).toBeInTheDocument();
    expect(screen.getByLabelText("Password")).toHaveAttribute("aria-invalid", "true");
    expect(calls.creates).toHaveLength(0);
    expect(dialog).toBeInTheDocument();

    await user.type(screen.getByLabelText("Password"), PASSWORD);
    await user.click(screen.getByRole("button", { name: "Confirm and send" }));
    await initiated();
    expect(calls.creates).toHaveLength(1);
    expect(calls.creates[0]).toMatchObject({ recipientPhone: "083 765 4321", amountCents: 15000n });
    expect(calls.finishes.at(-1)?.proof).toEqual({ case: "password", value: PASSWORD });
  });

  it("the browser's Back under the dialog closes it and sends nothing; Forward shows the confirmation again", async () => {
    const { user, calls, router } = renderWizard("/send-money", {});
    await reachConfirmation(user, "150", "083 765 4321");
    await user.click(sendMoney());
    await screen.findByRole("dialog", { name: "Confirm it's you" });

    await act(() => router.navigate(-1));
    await screen.findByRole("radio", { name: /Travel Mastercard/ });
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Confirm it's you" })).not.toBeInTheDocument());
    expect(calls.creates).toHaveLength(0);

    await act(() => router.navigate(1));
    await screen.findByRole("heading", { name: "Confirm your transfer" });
    expect(screen.queryByRole("dialog", { name: "Confirm it's you" })).not.toBeInTheDocument();
    expect(calls.creates).toHaveLength(0);
  });

  it("sends to a phone paid before without asking, under R1,000", async () => {
    const { user, calls } = renderWizard("/send-money");
    await reachConfirmation(user, "500", "082 123 4567");
    await user.click(sendMoney());
    await initiated();
    expect(calls.begins).toBe(0);
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(calls.creates).toHaveLength(1);
  });

  it("asks above R1,000 even for a phone paid before, and not again within the window", async () => {
    const { user, calls, unmount } = renderWizard("/send-money");
    await reachConfirmation(user, "1010", "082 123 4567");
    await user.click(sendMoney());
    await screen.findByRole("dialog", { name: "Confirm it's you" });
    await user.type(await screen.findByLabelText("Password"), PASSWORD);
    await user.click(screen.getByRole("button", { name: "Confirm and send" }));
    await initiated();
    expect(calls.creates).toHaveLength(1);

    // Another transfer from this page moments later: the step-up still counts.
    unmount();
    const again = renderWizard("/send-money");
    await reachConfirmation(again.user, "1500", NEW);
    await again.user.click(sendMoney());
    await initiated();
    expect(again.calls.begins).toBe(0);
    expect(again.calls.creates).toHaveLength(1);
  });

  it("opens the same dialog when the server answers STEP_UP_REQUIRED, then sends again with the same key", async () => {
    const { user, calls } = renderWizard("/send-money", { serverWantsStepUp: true });
    await reachConfirmation(user, "200", "082 123 4567"); // predicted: no step-up
    await user.click(sendMoney());
    await screen.findByRole("dialog", { name: "Confirm it's you" });
    expect(calls.creates).toHaveLength(1);
    expect(screen.queryByText("Transaction failed")).not.toBeInTheDocument();
    await user.type(await screen.findByLabelText("Password"), PASSWORD);
    await user.click(screen.getByRole("button", { name: "Confirm and send" }));
    await initiated();
    expect(calls.creates).toHaveLength(2);
    expect(calls.creates[1].idempotencyKey).toBe(calls.creates[0].idempotencyKey);
  });

  it("uses the passkey when the sender has one", async () => {
    vi.stubGlobal("PublicKeyCredential", function PublicKeyCredential() {});
    startAuthentication.mockResolvedValue({ id: "cred-1", rawId: "cred-1", type: "public-key", response: {} });
    const { user, calls } = renderWizard("/send-money", { passkey: true });
    await reachConfirmation(user, "1500", "082 123 4567");
    await user.click(sendMoney());
    await screen.findByRole("dialog", { name: "Confirm it's you" });
    expect(screen.queryByLabelText("Password")).not.toBeInTheDocument();
    await user.click(await screen.findByRole("button", { name: "Use passkey" }));
    await initiated();
    expect(startAuthentication).toHaveBeenCalledWith({ optionsJSON: expect.objectContaining({ challenge: "Y2hhbGxlbmdl" }) });
    expect(calls.finishes[0].proof.case).toBe("passkeyCredentialJson");
    expect(calls.creates).toHaveLength(1);
  });

  it("says so when the passkey prompt is dismissed, and offers the password instead", async () => {
    vi.stubGlobal("PublicKeyCredential", function PublicKeyCredential() {});
    startAuthentication.mockRejectedValue(Object.assign(new Error("dismissed"), { name: "NotAllowedError" }));
    const { user, calls } = renderWizard("/send-money", { passkey: true });
    await reachConfirmation(user, "1500", "082 123 4567");
    await user.click(sendMoney());
    await user.click(await screen.findByRole("button", { name: "Use passkey" }));
    expect(await screen.findByText("We couldn't confirm it's you with your passkey. Please try again.")).toBeInTheDocument();
    expect(calls.creates).toHaveLength(0);
    await user.click(screen.getByRole("button", { name: "Use your password instead" }));
    await user.type(await screen.findByLabelText("Password"), PASSWORD);
    await user.click(screen.getByRole("button", { name: "Confirm and send" }));
    await initiated();
    expect(calls.creates).toHaveLength(1);
  });

  it("shows the rate limit's wait", async () => {
    const { user, calls } = renderWizard("/send-money", { limited: true });
    await reachConfirmation(user, "150", NEW);
    await user.click(sendMoney());
    await user.type(await screen.findByLabelText("Password"), PASSWORD);
    await user.click(screen.getByRole("button", { name: "Confirm and send" }));
    expect(await screen.findByText(/Too many attempts\. Please try again in 30 seconds\./)).toBeInTheDocument();
    expect(calls.creates).toHaveLength(0);
  });
});

describe("isStepUpRequired", () => {
  it("reads the ErrorInfo's reason and domain", () => {
    expect(isStepUpRequired(stepUpRequired())).toBe(true);
    expect(isStepUpRequired(errorWithDetails("x", Code.FailedPrecondition))).toBe(false);
    expect(isStepUpRequired(new Error("x"))).toBe(false);
  });
});
