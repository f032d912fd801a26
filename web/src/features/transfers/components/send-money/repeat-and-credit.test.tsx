import type { ConnectRouter } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { configure, screen, waitFor, within } from "@testing-library/react";
import type { UserEvent } from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CreditService, PaymentMethodsService, ScheduleFrequency, SchedulesService, TransferStatus, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { CreateScheduleRequest, CreateTransferRequest, Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { addDays, addMonths, formatDay, saToday } from "@/lib/date";
import { forgetStepUp, rememberStepUp } from "@/lib/step-up";
import { SIGNED_IN, TEST_REFERRAL_CODE, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";
import { BANKS, CARDS, completed, makeTransfer } from "../../test-utils";

configure({ asyncUtilTimeout: 4000 });
vi.setConfig({ testTimeout: 20_000 });

const TODAY = saToday();
/** R150 to Standard Bank: fee R10.95 + 0.3 % (R0.45) = R11.40, total R161.40. */
const FEE = 1_140n;

interface Options {
  creditCents?: bigint;
  /** The sender's first transfer: its fee is waived. */
  firstTransfer?: boolean;
  scheduleFails?: boolean;
}

function backend(options: Options = {}) {
  const calls = { creates: [] as CreateTransferRequest[], schedules: [] as CreateScheduleRequest[], last: undefined as Transfer | undefined };
  const routes = (r: ConnectRouter) => {
    r.rpc(TransfersService.method.listBanks, () => ({ banks: BANKS }));
    r.rpc(TransfersService.method.quoteFee, (req) => ({
      quote: options.firstTransfer
        ? { amountCents: req.amountCents, bankFeeCents: 1_095n, platformFeeCents: 45n, totalFeeCents: 0n, waivedFeeCents: FEE, totalAmountCents: req.amountCents }
        : { amountCents: req.amountCents, bankFeeCents: 1_095n, platformFeeCents: 45n, totalFeeCents: FEE, totalAmountCents: req.amountCents + FEE },
    }));
    r.rpc(PaymentMethodsService.method.listPaymentMethods, () => ({ paymentMethods: CARDS }));
    // Every phone was paid before: no first-payment question here.
    r.rpc(TransfersService.method.listTransfers, (req) => ({
      transfers: req.query ? [completed(makeTransfer({ recipientPhone: req.query }))] : [],
      totalCount: req.query ? 1 : 0,
    }));
    r.rpc(CreditService.method.getCredit, () => ({ balanceCents: options.creditCents ?? 0n, referralCode: TEST_REFERRAL_CODE }));
    r.rpc(TransfersService.method.createTransfer, (req) => {
      calls.creates.push(req);
      const total = req.amountCents + FEE;
      // The server's rule: credit pays the fee, never the amount.
      const credit = (options.creditCents ?? 0n) < FEE ? (options.creditCents ?? 0n) : FEE;
      calls.last = completed(
        makeTransfer({
          recipientName: req.recipientName,
          recipientPhone: req.recipientPhone,
          amountCents: req.amountCents,
          feeCents: FEE,
          totalAmountCents: total,
          creditAppliedCents: credit,
          cardChargeCents: total - credit,
          status: TransferStatus.PENDING,
        }),
      );
      return { transfer: calls.last };
    });
    r.rpc(TransfersService.method.getTransfer, () => ({ transfer: calls.last }));
    r.rpc(SchedulesService.method.createSchedule, (req) => {
      calls.schedules.push(req);
      if (options.scheduleFails) throw new ConnectError("The card can't be used for scheduled sends.", Code.FailedPrecondition);
      return { schedule: { id: "s-1", startDate: req.startDate, nextDate: req.startDate, frequency: req.frequency } };
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

async function reachConfirmation(user: UserEvent) {
  await user.type(await screen.findByLabelText("Amount to Send (ZAR)"), "150");
  await user.click(next());
  await user.type(await screen.findByLabelText("Recipient Name"), "Sipho Dlamini");
  await user.type(screen.getByLabelText("Recipient Phone Number"), "082 123 4567");
  await screen.findByRole("option", { name: "Standard Bank" });
  await user.selectOptions(screen.getByLabelText("Bank"), "Standard Bank");
  await user.click(next());
  await screen.findByRole("radio", { name: /Travel Mastercard/ });
  await user.click(next());
  await screen.findByRole("heading", { name: "Confirm your transfer" });
  await waitFor(() => expect(sendMoney()).toBeEnabled());
}

describe("Repeat this send", () => {
  // Stepped up a moment ago: these tests are about the repeat, not "Confirm it's you".
  beforeEach(() => rememberStepUp(Date.now() + 5 * 60_000));
  afterEach(() => forgetStepUp());

  it("is off by default: the transfer alone goes out", async () => {
    const { user, calls } = renderWizard();
    await reachConfirmation(user);
    expect(screen.getByRole("checkbox", { name: "Repeat this send" })).not.toBeChecked();
    await user.click(sendMoney());
    await expectToast("Transfer initiated");
    expect(calls.creates).toHaveLength(1);
    expect(calls.schedules).toHaveLength(0);
  });

  it("weekly: after the transfer, schedules the same send starting a week from today", async () => {
    const { user, calls } = renderWizard();
    await reachConfirmation(user);
    await user.click(screen.getByRole("checkbox", { name: "Repeat this send" }));
    expect(screen.getByRole("radio", { name: "Weekly" })).toBeChecked();
    const start = addDays(TODAY, 7);
    expect(screen.getByText(`Today's send is this one; the next goes to Sipho Dlamini on ${formatDay(start)}, then every week.`)).toBeInTheDocument();
    await user.type(screen.getByLabelText("End date (optional)"), addDays(TODAY, 60));
    await user.click(sendMoney());
    await expectToast("Repeat set up", `R150,00 to Sipho Dlamini every week, next on ${formatDay(start)}.`);
    expect(calls.schedules).toHaveLength(1);
    expect(calls.schedules[0]).toMatchObject({
      recipientName: "Sipho Dlamini",
      recipientPhone: "082 123 4567",
      bank: calls.creates[0].bank,
      amountCents: 15_000n,
      paymentMethodId: "pm-2",
      frequency: ScheduleFrequency.WEEKLY,
      startDate: start,
      endDate: addDays(TODAY, 60),
    });
    expect(calls.schedules[0].idempotencyKey).not.toBe(calls.creates[0].idempotencyKey);
  });

  it("monthly: starts a month from today", async () => {
    const { user, calls } = renderWizard();
    await reachConfirmation(user);
    await user.click(screen.getByRole("checkbox", { name: "Repeat this send" }));
    await user.click(screen.getByRole("radio", { name: "Monthly" }));
    await user.click(sendMoney());
    await expectToast("Repeat set up");
    expect(calls.schedules[0]).toMatchObject({ frequency: ScheduleFrequency.MONTHLY, startDate: addMonths(TODAY, 1), endDate: "" });
  });

  it("refuses an end date before the next send", async () => {
    const { user, calls } = renderWizard();
    await reachConfirmation(user);
    await user.click(screen.getByRole("checkbox", { name: "Repeat this send" }));
    await user.type(screen.getByLabelText("End date (optional)"), addDays(TODAY, 3));
    expect(screen.getByText("The end date can't be before the next send.")).toBeInTheDocument();
    expect(sendMoney()).toBeDisabled();
    expect(calls.creates).toHaveLength(0);
  });

  it("says so when the repeat cannot be set up; the transfer stands", async () => {
    const { user, calls } = renderWizard({ scheduleFails: true });
    await reachConfirmation(user);
    await user.click(screen.getByRole("checkbox", { name: "Repeat this send" }));
    await user.click(sendMoney());
    await expectToast("Transfer initiated");
    await expectToast("The repeat wasn't set up", "The card can't be used for scheduled sends.");
    expect(calls.creates).toHaveLength(1);
  });
});

describe("transfer credit on the confirmation step", () => {
  beforeEach(() => rememberStepUp(Date.now() + 5 * 60_000));
  afterEach(() => forgetStepUp());

  it("shows the credit paying the fee and the card charged the amount, then what the server did", async () => {
    const { user } = renderWizard({ creditCents: 5_000n });
    await reachConfirmation(user);
    const payment = await screen.findByRole("region", { name: "Payment" });
    expect(within(payment).getByText("Total amount").nextElementSibling).toHaveTextContent("R161,40");
    expect(within(payment).getByText("Credit applied").nextElementSibling).toHaveTextContent("−R11,40");
    expect(within(payment).getByText("Charged to your card").nextElementSibling).toHaveTextContent("R150,00");

    await user.click(sendMoney());
    await screen.findByText("Your transfer has been completed successfully!");
    expect(screen.getByText("Credit applied").nextElementSibling).toHaveTextContent("−R11,40");
    expect(screen.getByText("Charged to your card").nextElementSibling).toHaveTextContent("R150,00");
  });

  it("never pays the amount with credit, however much there is", async () => {
    const { user } = renderWizard({ creditCents: 50_000n });
    await reachConfirmation(user);
    const payment = await screen.findByRole("region", { name: "Payment" });
    expect(within(payment).getByText("Credit applied").nextElementSibling).toHaveTextContent("−R11,40");
    expect(within(payment).getByText("Charged to your card").nextElementSibling).toHaveTextContent("R150,00");
  });

  it("pays part of the fee with what credit there is", async () => {
    const { user } = renderWizard({ creditCents: 500n });
    await reachConfirmation(user);
    const payment = await screen.findByRole("region", { name: "Payment" });
    expect(within(payment).getByText("Credit applied").nextElementSibling).toHaveTextContent("−R5,00");
    expect(within(payment).getByText("Charged to your card").nextElementSibling).toHaveTextContent("R156,40");
  });

  it("keeps the credit on a transfer without a fee, and says why", async () => {
    const { user } = renderWizard({ creditCents: 5_000n, firstTransfer: true });
    await reachConfirmation(user);
    expect(
      await screen.findByText("This transfer has no fee, so your transfer credit (R50,00) is kept for the fees of your next transfers."),
    ).toBeInTheDocument();
    expect(screen.queryByText("Credit applied")).not.toBeInTheDocument();
  });

  it("shows nothing of credit without any: the fees and the total only", async () => {
    const { user } = renderWizard();
    await reachConfirmation(user);
    const payment = await screen.findByRole("region", { name: "Payment" });
    expect((await within(payment).findByText("Total amount")).nextElementSibling).toHaveTextContent("R161,40");
    expect(screen.queryByText("Credit applied")).not.toBeInTheDocument();
    expect(screen.queryByText("Charged to your card")).not.toBeInTheDocument();
    expect(screen.queryByText(/transfer credit/)).not.toBeInTheDocument();
  });
});

describe("transfer credit in the Transaction Summary", () => {
  /** The amount and the recipient's bank: the summary then has the quote. */
  async function quoteAndBank(user: UserEvent, total = "R161,40") {
    await user.type(await screen.findByLabelText("Amount to Send (ZAR)"), "150");
    await user.click(next());
    await screen.findByRole("option", { name: "Standard Bank" });
    await user.selectOptions(screen.getByLabelText("Bank"), "Standard Bank");
    const summary = screen.getByRole("region", { name: "Transaction Summary" });
    await waitFor(() => expect(within(summary).getByText("Total amount").nextElementSibling).toHaveTextContent(total));
    return summary;
  }

  it("shows the credit line the confirmation step shows, from the same estimate, on every step", async () => {
    const { user } = renderWizard({ creditCents: 500n });
    const summary = await quoteAndBank(user);
    expect((await within(summary).findByText("Credit applied")).nextElementSibling).toHaveTextContent("−R5,00");
    expect(within(summary).getByText("Charged to your card").nextElementSibling).toHaveTextContent("R156,40");

    await user.type(screen.getByLabelText("Recipient Name"), "Sipho Dlamini");
    await user.type(screen.getByLabelText("Recipient Phone Number"), "082 123 4567");
    await user.click(next());
    await screen.findByRole("radio", { name: /Travel Mastercard/ });
    await user.click(next());
    const payment = await screen.findByRole("region", { name: "Payment" });
    for (const box of [summary, payment]) {
      expect(within(box).getByText("Credit applied").nextElementSibling).toHaveTextContent("−R5,00");
      expect(within(box).getByText("Charged to your card").nextElementSibling).toHaveTextContent("R156,40");
    }
  });

  it("never puts the amount on credit: the card is charged the amount", async () => {
    const { user } = renderWizard({ creditCents: 50_000n });
    const summary = await quoteAndBank(user);
    expect((await within(summary).findByText("Credit applied")).nextElementSibling).toHaveTextContent("−R11,40");
    expect(within(summary).getByText("Charged to your card").nextElementSibling).toHaveTextContent("R150,00");
  });

  it("has the line only when credit pays part of the fee: not without credit, not on a free transfer", async () => {
    const cases = [
      { options: { creditCents: 500n }, total: "R161,40", line: true },
      { options: {}, total: "R161,40", line: false },
      { options: { creditCents: 5_000n, firstTransfer: true }, total: "R150,00", line: false },
    ];
    for (const { options, total, line } of cases) {
      const { user, unmount } = renderWizard(options);
      const summary = await quoteAndBank(user, total);
      if (line) expect(await within(summary).findByText("Credit applied")).toBeInTheDocument();
      else {
        expect(within(summary).queryByText("Credit applied")).not.toBeInTheDocument();
        expect(within(summary).queryByText("Charged to your card")).not.toBeInTheDocument();
      }
      unmount();
    }
  });
});
