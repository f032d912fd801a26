import type { ConnectRouter } from "@connectrpc/connect";
import { act, configure, screen, waitFor, within } from "@testing-library/react";
import type { UserEvent } from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PaymentMethodsService, TransferStatus, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { CreateTransferRequest, Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { forgetStepUp, rememberStepUp } from "@/lib/step-up";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { WIZARD_STEPS } from "../../api/send-money";
import { BANKS, CARDS, completed, makeTransfer } from "../../test-utils";
import { searchForStep, stepFromSearch } from "./wizard-history";

configure({ asyncUtilTimeout: 4000 });
vi.setConfig({ testTimeout: 20_000 });

/** A fake BFF for the wizard: every phone paid before, every transfer completes (or fails). */
function routes(options: { fail?: boolean } = {}) {
  const creates: CreateTransferRequest[] = [];
  let last: Transfer | undefined;
  const register = (r: ConnectRouter) => {
    r.rpc(TransfersService.method.listBanks, () => ({ banks: BANKS }));
    r.rpc(TransfersService.method.quoteFee, (req) => ({
      quote: { amountCents: req.amountCents, bankFeeCents: 1_095n, platformFeeCents: 45n, totalFeeCents: 1_140n, totalAmountCents: req.amountCents + 1_140n },
    }));
    r.rpc(PaymentMethodsService.method.listPaymentMethods, () => ({ paymentMethods: CARDS }));
    r.rpc(TransfersService.method.listTransfers, (req) => ({
      transfers: req.query ? [completed(makeTransfer({ recipientPhone: req.query }))] : [],
      totalCount: req.query ? 1 : 0,
    }));
    r.rpc(TransfersService.method.createTransfer, (req) => {
      creates.push(req);
      const transfer = makeTransfer({ recipientName: req.recipientName, amountCents: req.amountCents });
      last = options.fail ? makeTransfer({ ...transfer, status: TransferStatus.FAILED, failureReason: "Your card was declined." }) : completed(transfer);
      return { transfer: last };
    });
    r.rpc(TransfersService.method.getTransfer, () => ({ transfer: last }));
  };
  return { creates, register };
}

/** The dashboard, then the wizard from its link: the entry before the wizard is the dashboard. */
async function openWizard(path = "/send-money", options: { fail?: boolean } = {}) {
  const fake = routes(options);
  const app = renderApp("/dashboard", { session: SIGNED_IN, routes: fake.register });
  await screen.findByRole("heading", { name: "Quick Actions" });
  await act(() => app.router.navigate(path));
  await screen.findByRole("heading", { level: 1, name: "Send Money" });
  return { ...app, creates: fake.creates };
}

const next = () => screen.getByRole("button", { name: "Next" });
const currentStep = () =>
  within(screen.getByRole("list", { name: "Send money steps" }))
    .getAllByRole("listitem")
    .find((item) => item.getAttribute("aria-current") === "step")?.textContent;

async function expectStep(name: string) {
  await waitFor(() => expect(currentStep()).toContain(name));
}

async function toRecipient(user: UserEvent) {
  await user.type(await screen.findByLabelText("Amount to Send (ZAR)"), "150");
  await user.click(next());
  await expectStep("Recipient");
}

async function toPayment(user: UserEvent) {
  await toRecipient(user);
  await user.type(screen.getByLabelText("Recipient Name"), "Sipho Dlamini");
  await user.type(screen.getByLabelText("Recipient Phone Number"), "082 123 4567");
  await screen.findByRole("option", { name: "Standard Bank" });
  await user.selectOptions(screen.getByLabelText("Bank"), "Standard Bank");
  await user.click(next());
  await screen.findByRole("radio", { name: /Travel Mastercard/ });
  await expectStep("Payment");
}

async function toConfirmation(user: UserEvent) {
  await toPayment(user);
  await user.click(next());
  await screen.findByRole("heading", { name: "Confirm your transfer" });
}

/** The browser's Back (-1) or Forward (1). */
/**
 * The browser's Back (-1) or Forward (1), pressed once the step on screen has its history entry,
 * as a person's press always is: the wizard pushes the entry a moment after the step shows, and
 * on a busy machine a press in between would leave from the entry before it (the CI run that
 * went back to the dashboard from "Recipient").
 */
async function go(router: { navigate: (delta: number) => Promise<void>; state: { location: { search: string } } }, delta: number) {
  await waitFor(() => {
    const shown = shownStep();
    if (shown !== undefined) expect(stepFromSearch(router.state.location.search)).toBe(shown);
  });
  await act(() => router.navigate(delta));
}

/** The wizard's step on screen (1–4), or undefined when the wizard is not shown. */
function shownStep(): number | undefined {
  if (!screen.queryByRole("list", { name: "Send money steps" })) return undefined;
  const text = currentStep() ?? "";
  const index = WIZARD_STEPS.findIndex((step) => text.includes(step.label));
  return index < 0 ? undefined : index + 1;
}

describe("the step in the URL", () => {
  it("reads ?step=2..4 and nothing else", () => {
    expect(stepFromSearch("")).toBe(1);
    expect(stepFromSearch("?step=3&amount=150")).toBe(3);
    for (const odd of ["?step=1", "?step=5", "?step=x", "?step=03"]) expect(stepFromSearch(odd)).toBe(1);
  });

  it("keeps the prefill beside it, and drops it on the first step", () => {
    expect(searchForStep("?amount=150&recipient=mom", 3)).toBe("?amount=150&recipient=mom&step=3");
    expect(searchForStep("?amount=150&step=3", 1)).toBe("?amount=150");
    expect(searchForStep("?step=2", 1)).toBe("");
  });
});

describe("the browser's Back and Forward in the send-money wizard", () => {
  beforeEach(() => rememberStepUp(Date.now() + 5 * 60_000));
  afterEach(() => forgetStepUp());

  it("Back goes one step back with what was typed; Forward comes back; Back on the first step leaves", async () => {
    const { user, router } = await openWizard();
    await toPayment(user);
    await waitFor(() => expect(router.state.location.search).toBe("?step=3"));

    await go(router, -1);
    await expectStep("Recipient");
    expect(screen.getByLabelText("Recipient Name")).toHaveValue("Sipho Dlamini");
    expect(screen.getByLabelText("Recipient Phone Number")).toHaveValue("082 123 4567");
    // The step's first field has the focus, as after the wizard's own Back.
    await waitFor(() => expect(screen.getByLabelText("Recipient Name")).toHaveFocus());

    await go(router, 1);
    await expectStep("Payment");
    expect(screen.getByRole("radio", { name: /Travel Mastercard/ })).toBeChecked();

    // Back to a step, then on with Next (the step's entry is the same one as before).
    await go(router, -1);
    await expectStep("Recipient");
    await user.click(next());
    await expectStep("Payment");

    await go(router, -1);
    await go(router, -1);
    await expectStep("Amount");
    expect(screen.getByLabelText("Amount to Send (ZAR)")).toHaveValue("150");
    expect(router.state.location.search).toBe("");

    await go(router, -1);
    await screen.findByRole("heading", { name: "Quick Actions" });
    expect(router.state.location.pathname).toBe("/dashboard");
  });

  it("the wizard's Back is the browser's Back: it adds no entry, and Forward undoes it", async () => {
    const { user, router } = await openWizard();
    await toConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Back" }));
    await expectStep("Payment");
    await user.click(screen.getByRole("button", { name: "Back" }));
    await expectStep("Recipient");
    await go(router, 1);
    await expectStep("Payment");
    await go(router, -1);
    await go(router, -1);
    await expectStep("Amount");
    await go(router, -1);
    await screen.findByRole("heading", { name: "Quick Actions" });
  });

  it("a double click on Next moves one step", async () => {
    const { user, router } = await openWizard();
    await user.type(await screen.findByLabelText("Amount to Send (ZAR)"), "150");
    await user.dblClick(next());
    await expectStep("Recipient");
    await go(router, -1);
    await expectStep("Amount");
  });

  it("keeps the prefill in the URL while the steps change", async () => {
    const { user, router } = await openWizard("/send-money?amount=200&recipient=Thandi");
    await user.click(await screen.findByRole("button", { name: "Next" }));
    await expectStep("Recipient");
    // Pushed a moment after the step shows (go's comment).
    await waitFor(() => expect(router.state.location.search).toBe("?amount=200&recipient=Thandi&step=2"));
    expect(screen.getByLabelText("Recipient Name")).toHaveValue("Thandi");
  });

  it("a later step typed into the URL shows the first, and the URL says so", async () => {
    const { router } = await openWizard("/send-money?amount=150&step=4");
    await expectStep("Amount");
    expect(screen.getByLabelText("Amount to Send (ZAR)")).toHaveValue("150");
    await waitFor(() => expect(router.state.location.search).toBe("?amount=150"));
    expect(screen.queryByRole("heading", { name: "Confirm your transfer" })).not.toBeInTheDocument();
  });

  it("Forward to a step the form no longer allows stays on the step that needs fixing, and says why", async () => {
    const { user, router } = await openWizard();
    await toRecipient(user);
    await go(router, -1);
    await expectStep("Amount");
    await user.clear(screen.getByLabelText("Amount to Send (ZAR)"));
    await go(router, 1);
    expect(await screen.findByText("Invalid amount")).toBeInTheDocument();
    await expectStep("Amount");
    await waitFor(() => expect(router.state.location.search).toBe(""));
    expect(screen.getByLabelText("Amount to Send (ZAR)")).toHaveAttribute("aria-invalid", "true");
    // Fixed, Next goes on as before.
    await user.type(screen.getByLabelText("Amount to Send (ZAR)"), "100");
    await user.click(next());
    await expectStep("Recipient");
  });

  it("after a transfer is sent, Back leaves the wizard: the confirmation never shows again", async () => {
    const { user, router, creates } = await openWizard();
    await toConfirmation(user);
    // The run's four steps are four entries: the confirmation is the last.
    await waitFor(() => expect(router.state.location.search).toBe("?step=4"));
    await go(router, -1);
    await expectStep("Payment");
    await go(router, 1);
    await screen.findByRole("heading", { name: "Confirm your transfer" });
    // The wizard's Back, then the browser's Forward: the same confirmation entry again.
    await user.click(screen.getByRole("button", { name: "Back" }));
    await expectStep("Payment");
    await go(router, 1);
    await screen.findByRole("heading", { name: "Confirm your transfer" });
    await user.click(await screen.findByRole("button", { name: "Send Money" }));
    await screen.findByRole("heading", { name: "Transfer Successful" });
    // The history is back on the wizard's first entry, under the result.
    await waitFor(() => expect(router.state.location.search).toBe(""));

    // Forward into the sent run's steps shows the result still.
    await go(router, 1);
    await waitFor(() => expect(router.state.location.search).toBe(""));
    expect(screen.getByRole("heading", { name: "Transfer Successful" })).toBeInTheDocument();

    await go(router, -1);
    await screen.findByRole("heading", { name: "Quick Actions" });
    expect(router.state.location.pathname).toBe("/dashboard");
    expect(screen.queryByRole("heading", { name: "Confirm your transfer" })).not.toBeInTheDocument();
    expect(creates).toHaveLength(1);
  });

  it("after Send Another Transfer, Forward does not bring back the sent transfer's steps", async () => {
    const { user, router } = await openWizard();
    await toConfirmation(user);
    await waitFor(() => expect(router.state.location.search).toBe("?step=4"));
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    await user.click(await screen.findByRole("button", { name: "Send Another Transfer" }));
    await expectStep("Amount");
    expect(screen.getByLabelText("Amount to Send (ZAR)")).toHaveValue("");
    for (let i = 0; i < 3; i++) await go(router, 1);
    await expectStep("Amount");
    await waitFor(() => expect(router.state.location.search).toBe(""));
    expect(screen.queryByText("Invalid amount")).not.toBeInTheDocument();
  });

  it("Try Again opens the payment step, and Back goes on to the recipient with what was typed", async () => {
    const { user, router } = await openWizard("/send-money", { fail: true });
    await toConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    await user.click(await screen.findByRole("button", { name: "Try Again" }));
    await expectStep("Payment");
    await waitFor(() => expect(router.state.location.search).toBe("?step=3"));
    await go(router, -1);
    await expectStep("Recipient");
    expect(screen.getByLabelText("Recipient Name")).toHaveValue("Sipho Dlamini");
    await go(router, -1);
    await expectStep("Amount");
    await go(router, -1);
    await screen.findByRole("heading", { name: "Quick Actions" });
  });
});
