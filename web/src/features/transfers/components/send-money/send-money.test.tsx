import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { configure, screen, within } from "@testing-library/react";
import type { UserEvent } from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  Bank,
  CollectionStatus,
  FeeQuoteSchema,
  GetLimitsResponseSchema,
  LimitKind,
  PaymentMethodSchema,
  PaymentMethodType,
  PaymentMethodsService,
  TransferStatus,
  TransfersService,
} from "@/gen/thumela/bff/v1/bff_pb";
import type {
  AddCardRequest,
  CreateTransferRequest,
  GetLimitsResponse,
  PaymentMethod,
  QuoteFeeRequest,
  Transfer,
} from "@/gen/thumela/bff/v1/bff_pb";
import { flushAnalytics, setAnalyticsSender } from "@/lib/analytics";
import type { AnalyticsEventInit } from "@/lib/analytics";
import { SIGNED_IN, TEST_LIMITS, renderApp } from "@/test/render-app";
import { liveFeed } from "@/test/live-feed";
import { expectNoToast, expectToast } from "@/test/toasts";
import { PRESET_RECIPIENTS } from "../../lib/preset-recipients";
import { formatMoney } from "@/lib/money";
import { BANKS, CARDS, completed, makeTransfer, withChanges, withVoucher } from "../../test-utils";
import { RESULT_TEXT } from "./transfer-result";

// The first render of a lazy route transforms its modules: allow for a slow, busy machine.
configure({ asyncUtilTimeout: 4000 });
vi.setConfig({ testTimeout: 20_000 });

type QuoteInit = MessageInitShape<typeof FeeQuoteSchema>;

/** Bank fee from BANKS + 0.3 % rounded half-up; `waived` zeroes what is paid. */
function quoteFor({ bank, amountCents }: QuoteFeeRequest, waived = false): QuoteInit {
  const option = BANKS.find((b) => b.bank === bank)!;
  const platform = (amountCents * 30n + 5000n) / 10000n;
  const fee = option.baseFeeCents + platform;
  return {
    amountCents,
    bankFeeCents: option.baseFeeCents,
    platformFeeCents: platform,
    totalFeeCents: waived ? 0n : fee,
    totalAmountCents: amountCents + (waived ? 0n : fee),
    waived,
    waivedFeeCents: waived ? fee : 0n,
  };
}

interface Backend {
  cards?: PaymentMethod[];
  waived?: boolean;
  /** Answers CreateTransfer (default: a pending transfer built from the request). */
  create?: (request: CreateTransferRequest, attempt: number) => Transfer | Promise<Transfer>;
  /** Answers GetTransfer (default: the last created transfer). */
  get?: (id: string, reads: number) => Transfer;
  addCard?: (request: AddCardRequest) => PaymentMethod;
  live?: ReturnType<typeof liveFeed>;
  /** While down is true, ListPaymentMethods answers Unavailable. */
  paymentMethods?: { down: boolean };
  /** What GetLimits answers (default: TEST_LIMITS, nothing used); a test may change it. */
  limits?: { current: GetLimitsResponse };
}

function backend(options: Backend = {}) {
  const calls = {
    quotes: [] as QuoteFeeRequest[],
    creates: [] as CreateTransferRequest[],
    reads: 0,
    last: undefined as Transfer | undefined,
  };
  const routes = (r: ConnectRouter) => {
    r.rpc(TransfersService.method.listBanks, () => ({ banks: BANKS }));
    r.rpc(TransfersService.method.quoteFee, (request) => {
      calls.quotes.push(request);
      return { quote: quoteFor(request, options.waived) };
    });
    r.rpc(PaymentMethodsService.method.listPaymentMethods, () => {
      if (options.paymentMethods?.down) throw new ConnectError("unavailable", Code.Unavailable);
      return { paymentMethods: options.cards ?? CARDS };
    });
    // Every phone has been paid before, so no transfer here asks "Confirm it's you" (the
    // step-up has its own tests, in step-up-dialog.test.tsx).
    r.rpc(TransfersService.method.listTransfers, (request) => ({
      transfers: request.query ? [completed(makeTransfer({ recipientPhone: request.query }))] : [],
      totalCount: request.query ? 1 : 0,
    }));
    r.rpc(TransfersService.method.createTransfer, async (request) => {
      calls.creates.push(request);
      const transfer = options.create
        ? await options.create(request, calls.creates.length)
        : makeTransfer({
            id: "7f3a9c21-5b6d-4e8f-9a0b-1c2d3e4f5a6b",
            recipientName: request.recipientName,
            recipientPhone: request.recipientPhone,
            amountCents: request.amountCents,
            status: TransferStatus.PENDING,
          });
      calls.last = transfer;
      return { transfer };
    });
    r.rpc(TransfersService.method.getTransfer, (request) => {
      calls.reads += 1;
      const transfer = options.get ? options.get(request.id, calls.reads) : calls.last;
      if (!transfer) throw new ConnectError("transfer not found", Code.NotFound);
      return { transfer };
    });
    if (options.addCard) {
      const addCard = options.addCard;
      r.rpc(PaymentMethodsService.method.addCard, (request) => ({ paymentMethod: addCard(request) }));
    }
    const limits = options.limits;
    if (limits) r.rpc(TransfersService.method.getLimits, () => limits.current);
    options.live?.register(r);
  };
  return { calls, routes };
}

function renderWizard(path: string, options: Backend = {}) {
  const fake = backend(options);
  const utils = renderApp(path, { session: SIGNED_IN, routes: fake.routes });
  return { ...utils, calls: fake.calls };
}

const next = () => screen.getByRole("button", { name: "Next" });

async function completeAmount(user: UserEvent, amount = "150") {
  await user.type(await screen.findByLabelText("Amount to Send (ZAR)"), amount);
  await user.click(next());
}

async function completeRecipient(user: UserEvent, bank = "Standard Bank") {
  await user.type(await screen.findByLabelText("Recipient Name"), "Sipho Dlamini");
  await user.type(screen.getByLabelText("Recipient Phone Number"), "082 123 4567");
  await screen.findByRole("option", { name: bank });
  await user.selectOptions(screen.getByLabelText("Bank"), bank);
  await user.click(next());
}

/** Through the first three steps to the confirmation (the default card stays selected). */
async function reachConfirmation(user: UserEvent) {
  await completeAmount(user);
  await completeRecipient(user);
  await screen.findByRole("radio", { name: /Travel Mastercard/ });
  await user.click(next());
  await screen.findByRole("heading", { name: "Confirm your transfer" });
}

function step(name: string) {
  return within(screen.getByRole("list", { name: "Send money steps" }))
    .getAllByRole("listitem")
    .find((item) => item.textContent?.includes(name))!;
}

/** Next validates asynchronously: wait until the indicator marks `name` as the current step. */
async function expectStep(name: string) {
  await vi.waitFor(() => expect(step(name)).toHaveAttribute("aria-current", "step"));
}

describe("send money wizard", () => {
  let events: AnalyticsEventInit[];

  beforeEach(() => {
    events = [];
    setAnalyticsSender(async (_id, batch) => {
      events.push(...batch);
    });
  });

  afterEach(() => setAnalyticsSender(undefined));

  it("walks amount → recipient → payment → confirmation with a step indicator, and Back goes one step back", async () => {
    const { user } = renderWizard("/send-money");
    expect(await screen.findByRole("heading", { level: 1, name: "Send Money" })).toBeInTheDocument();
    await expectStep("Amount");
    expect(screen.getByRole("textbox", { name: "Amount to Send (ZAR)" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Back" })).not.toBeInTheDocument();

    await completeAmount(user);
    await expectStep("Recipient");
    // The five banks from ListBanks, by their display names.
    await screen.findByRole("option", { name: "Capitec" });
    const bankNames = within(screen.getByLabelText("Bank"))
      .getAllByRole("option")
      .map((option) => option.textContent);
    expect(bankNames).toEqual(["Select a bank", "Standard Bank", "ABSA", "FNB", "Nedbank", "Capitec"]);

    await user.click(screen.getByRole("button", { name: "Back" }));
    await expectStep("Amount");
    expect(screen.getByLabelText("Amount to Send (ZAR)")).toHaveValue("150");
    await user.click(next());

    await completeRecipient(user);
    await expectStep("Payment");
    expect(screen.getByRole("group", { name: "Select Payment Method" })).toBeInTheDocument();
    await user.click(next());

    await expectStep("Confirmation");
    await user.click(screen.getByRole("button", { name: "Back" }));
    await expectStep("Payment");
  });

  it("moves keyboard focus to each step's first field, or to the card already chosen", async () => {
    const { user } = renderWizard("/send-money");
    await completeAmount(user);
    await expectStep("Recipient");
    // Not the ticked 'save this recipient' box at the bottom of the step.
    await vi.waitFor(() => expect(screen.getByLabelText("Recipient Name")).toHaveFocus());
    await completeRecipient(user);
    await expectStep("Payment");
    await vi.waitFor(() => expect(screen.getByRole("radio", { name: /Travel Mastercard/ })).toHaveFocus());
  });

  it("moves keyboard focus to the confirmation's heading, so the details are read before its controls", async () => {
    const { user } = renderWizard("/send-money");
    await completeAmount(user);
    await completeRecipient(user);
    await expectStep("Payment");
    await user.click(next());
    await expectStep("Confirmation");
    const heading = screen.getByRole("heading", { name: "Confirm your transfer" });
    await vi.waitFor(() => expect(heading).toHaveFocus());
    await user.tab();
    expect(heading).not.toHaveFocus();
  });

  it("shows one 'Invalid amount' toast however often Next is pressed, and drops it when the step goes on", async () => {
    const { user } = renderWizard("/send-money");
    const input = await screen.findByLabelText("Amount to Send (ZAR)");
    await user.click(next());
    await expectToast("Invalid amount");
    await user.click(next());
    await user.click(next());
    await vi.waitFor(() =>
      expect(screen.getAllByRole("listitem").filter((item) => (item.textContent ?? "").includes("Invalid amount"))).toHaveLength(1),
    );
    await user.type(input, "150");
    await user.click(next());
    await expectStep("Recipient");
    await expectNoToast("Invalid amount");
  });

  it.each([[""], ["0"], ["0.00"]])("refuses the amount %j: 'Invalid amount'", async (amount) => {
    const { user } = renderWizard("/send-money");
    const input = await screen.findByLabelText("Amount to Send (ZAR)");
    if (amount) await user.type(input, amount);
    await user.click(next());
    expect(await screen.findByText("Invalid amount")).toBeInTheDocument();
    expect(screen.getAllByText("Please enter a valid amount greater than zero.").length).toBeGreaterThan(0);
    expect(input).toHaveAttribute("aria-invalid", "true");
    await expectStep("Amount");
  });

  it("asks for every recipient detail: 'Missing information'", async () => {
    const { user } = renderWizard("/send-money");
    await completeAmount(user);
    await user.type(await screen.findByLabelText("Recipient Name"), "Sipho Dlamini");
    await user.type(screen.getByLabelText("Recipient Phone Number"), "0821234567");
    await user.click(next()); // no bank
    expect(await screen.findByText("Missing information")).toBeInTheDocument();
    expect(screen.getAllByText("Please fill in all recipient details.").length).toBeGreaterThan(0);
    await expectStep("Recipient");
  });

  it("shows 'No Payment Methods' without cards and asks for one: 'Select payment method'", async () => {
    const { user } = renderWizard("/send-money", { cards: [] });
    await completeAmount(user);
    await completeRecipient(user);
    expect(await screen.findByRole("heading", { name: "No Payment Methods" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Add Payment Method" })).toBeInTheDocument();
    await user.click(next());
    expect(await screen.findByText("Select payment method")).toBeInTheDocument();
    expect(screen.getAllByText("Please select a card to continue.").length).toBeGreaterThan(0);
    await expectStep("Payment");
  });

  it("says the cards could not be read, rather than 'No Payment Methods', and tries again", async () => {
    const paymentMethods = { down: true };
    const { user } = renderWizard("/send-money", { paymentMethods });
    await completeAmount(user);
    await completeRecipient(user);
    expect(await screen.findByText("We couldn't load your payment methods.", {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "No Payment Methods" })).not.toBeInTheDocument();
    paymentMethods.down = false;
    await user.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByLabelText(/Everyday Visa/)).toBeInTheDocument();
  });

  it("lists saved cards as 'name (•••• 1234)' with the default preselected", async () => {
    const { user } = renderWizard("/send-money");
    await completeAmount(user);
    await completeRecipient(user);
    const visa = await screen.findByRole("radio", { name: "Everyday Visa (•••• 4242)" });
    const master = screen.getByRole("radio", { name: /Travel Mastercard \(•••• 4444\)/ });
    expect(master).toBeChecked();
    expect(visa).not.toBeChecked();
    await user.click(visa);
    await user.click(next());
    const details = screen.getByRole("region", { name: "Transfer details" });
    expect(details).toHaveTextContent("Everyday Visa");
  });

  it("preselects the first card when none is the default", async () => {
    const cards = CARDS.map((card) => create(PaymentMethodSchema, { ...card, isDefault: false }));
    const { user } = renderWizard("/send-money", { cards });
    await completeAmount(user);
    await completeRecipient(user);
    expect(await screen.findByRole("radio", { name: "Everyday Visa (•••• 4242)" })).toBeChecked();
  });

  it("prefills amount, recipient, phone and location from the query string", async () => {
    const { user } = renderWizard("/send-money?amount=150&recipient=Lerato%20Nkosi&phone=0831234567&location=Sandton%20City");
    expect(await screen.findByLabelText("Amount to Send (ZAR)")).toHaveValue("150");
    await user.click(next());
    expect(await screen.findByLabelText("Recipient Name")).toHaveValue("Lerato Nkosi");
    expect(screen.getByLabelText("Recipient Phone Number")).toHaveValue("+27 83 123 4567");
    await screen.findByRole("option", { name: "FNB" });
    await user.selectOptions(screen.getByLabelText("Bank"), "FNB");
    await user.click(next());
    await screen.findByRole("radio", { name: /Travel Mastercard/ });
    await user.click(next());
    const details = await screen.findByRole("region", { name: "Transfer details" });
    expect(details).toHaveTextContent(`R150,00`);
    expect(details).toHaveTextContent("Sandton City");
    const recipient = screen.getByRole("region", { name: "Recipient" });
    expect(recipient).toHaveTextContent("Lerato Nkosi");
    // Shown grouped, as everywhere else, whatever the notation typed or passed.
    expect(within(recipient).getByText("Phone").nextElementSibling).toHaveTextContent(/^\+27 83 123 4567$/);
    expect(recipient).toHaveTextContent("FNB");
  });

  it("falls back to 'Nearest ATM' for a link's location the server would refuse, without showing it", async () => {
    // U+202E would show the rest reversed; the transfers service refuses it, and the sender cannot edit it.
    const { user, calls } = renderWizard(`/send-money?location=${encodeURIComponent("Sandton\u202eCity www.fnb-help.co.za")}`);
    await reachConfirmation(user);
    const details = await screen.findByRole("region", { name: "Transfer details" });
    expect(within(details).getByText("Withdrawal location").nextElementSibling).toHaveTextContent(/^Nearest ATM$/);
    expect(document.body).not.toHaveTextContent(/Sandton|fnb-help/);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    expect(await screen.findByText("Transfer initiated")).toBeInTheDocument();
    expect(calls.creates[0].withdrawalLocation).toMatchObject({ name: "Nearest ATM", type: "default" });
  });

  it("shows a link's location with its white space collapsed, and sends it so", async () => {
    const { user, calls } = renderWizard(`/send-money?location=${encodeURIComponent("  Rosebank   Mall ")}`);
    await reachConfirmation(user);
    const details = await screen.findByRole("region", { name: "Transfer details" });
    expect(within(details).getByText("Withdrawal location").nextElementSibling).toHaveTextContent(/^Rosebank Mall$/);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    expect(await screen.findByText("Transfer initiated")).toBeInTheDocument();
    expect(calls.creates[0].withdrawalLocation).toMatchObject({ name: "Rosebank Mall", type: "param" });
  });

  it("shows a Resend's or Send Similar's E.164 phone grouped in the field and on the confirmation, and sends it", async () => {
    const { user, calls } = renderWizard("/send-money?amount=150&recipient=Sipho%20Dlamini&phone=%2B27825551234&bank=1");
    expect(await screen.findByLabelText("Amount to Send (ZAR)")).toHaveValue("150");
    await user.click(next());
    // As the field reads when a saved recipient is picked, not "+27825551234".
    expect(await screen.findByLabelText("Recipient Phone Number")).toHaveValue("+27 82 555 1234");
    await screen.findByRole("option", { name: "Standard Bank" });
    await user.click(next());
    await screen.findByRole("radio", { name: /Travel Mastercard/ });
    await user.click(next());
    const recipient = await screen.findByRole("region", { name: "Recipient" });
    expect(within(recipient).getByText("Phone").nextElementSibling).toHaveTextContent(/^\+27 82 555 1234$/);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    await screen.findByText("Transfer initiated");
    // As the field reads (a typed or picked number goes so too); the server reads every notation.
    expect(calls.creates[0].recipientPhone).toBe("+27 82 555 1234");
  });

  it("prefills a preset recipient's name and phone (recipient=mom)", async () => {
    const { user } = renderWizard("/send-money?amount=200&recipient=mom");
    await user.click(await screen.findByRole("button", { name: "Next" }));
    expect(await screen.findByLabelText("Recipient Name")).toHaveValue(PRESET_RECIPIENTS.mom.name);
    expect(screen.getByLabelText("Recipient Phone Number")).toHaveValue(PRESET_RECIPIENTS.mom.phone);
  });

  it("shows the fee summary from QuoteFee: send amount, bank fee, platform fee, total fees, total", async () => {
    const { user, calls } = renderWizard("/send-money?amount=150");
    const summary = await screen.findByRole("region", { name: "Transaction Summary" });
    expect(summary).toHaveTextContent("R150,00");
    expect(summary).toHaveTextContent("choose the recipient's bank");
    expect(summary).toHaveTextContent("Fees are estimates and may vary with the bank's rates.");
    expect(summary).toHaveTextContent("standard eWallet/CashSend fee plus a 0.3% platform fee");

    await user.click(next());
    await screen.findByRole("option", { name: "Standard Bank" });
    await user.selectOptions(screen.getByLabelText("Bank"), "Standard Bank");
    await vi.waitFor(() => expect(summary).toHaveTextContent("Total amount"));
    const line = (term: string) => within(summary).getByText(term).nextElementSibling;
    expect(line("Send amount")).toHaveTextContent("R150,00");
    expect(line("Bank fee")).toHaveTextContent("R10,95");
    expect(line("Platform fee")).toHaveTextContent("R0,45");
    expect(line("Total fees")).toHaveTextContent("R11,40");
    expect(line("Total amount")).toHaveTextContent("R161,40");
    expect(summary).not.toHaveTextContent("First transfer free!");
    expect(calls.quotes.at(-1)).toMatchObject({ bank: Bank.STANDARD_BANK, amountCents: 15000n });
  });

  it("shows a waived first-transfer fee struck through with 'First transfer free!'", async () => {
    const { user } = renderWizard("/send-money?amount=150", { waived: true });
    await user.click(await screen.findByRole("button", { name: "Next" }));
    await screen.findByRole("option", { name: "Capitec" });
    await user.selectOptions(screen.getByLabelText("Bank"), "Capitec");
    const summary = screen.getByRole("region", { name: "Transaction Summary" });
    expect(await within(summary).findByText("First transfer free!")).toBeInTheDocument();
    const totalFees = within(summary).getByText("Total fees").nextElementSibling!;
    // R10.00 + R0.45 waived: struck through, then what is paid.
    expect(totalFees.querySelector("s")).toHaveTextContent("R10,45");
    expect(totalFees).toHaveTextContent("R0,00");
    expect(within(summary).getByText("Bank fee").nextElementSibling!.querySelector("s")).toHaveTextContent("R10,00");
    expect(within(summary).getByText("Total amount").nextElementSibling).toHaveTextContent("R150,00");
  });

  it("shows the fees and the total the card is charged on the confirmation step, above Send Money", async () => {
    const { user } = renderWizard("/send-money");
    await reachConfirmation(user);
    // Under 1024 px the Transaction Summary stacks below the wizard: the step says it itself (F22).
    const payment = await screen.findByRole("region", { name: "Payment" });
    await within(payment).findByText("Total amount");
    const line = (term: string) => within(payment).getByText(term).nextElementSibling;
    expect(line("Bank fee")).toHaveTextContent("R10,95");
    expect(line("Platform fee")).toHaveTextContent("R0,45");
    expect(line("Total fees")).toHaveTextContent("R11,40");
    expect(line("Total amount")).toHaveTextContent("R161,40");
    expect(within(payment).queryByText("Credit applied")).not.toBeInTheDocument();
    const form = screen.getByRole("form", { name: "Send money" });
    expect(form).toContainElement(payment);
    const sendButton = screen.getByRole("button", { name: "Send Money" });
    expect(payment.compareDocumentPosition(sendButton) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it("shows a waived first-transfer fee struck through on the confirmation step too", async () => {
    const { user } = renderWizard("/send-money", { waived: true });
    await reachConfirmation(user);
    const payment = await screen.findByRole("region", { name: "Payment" });
    const totalFees = (await within(payment).findByText("Total fees")).nextElementSibling!;
    // Standard Bank's R10.95 + R0.45, waived: struck through, then what is paid.
    expect(totalFees.querySelector("s")).toHaveTextContent("R11,40");
    expect(totalFees).toHaveTextContent("R0,00");
    expect(within(payment).getByText("Total amount").nextElementSibling).toHaveTextContent("R150,00");
  });

  it("sends the transfer in cents with one idempotency key, shows 'Processing your transfer...' and then the result", async () => {
    let release: () => void = () => {};
    const { user, calls } = renderWizard("/send-money?location=Menlyn%20Mall", {
      create: async (request) => {
        await new Promise<void>((resolve) => (release = resolve));
        return makeTransfer({ id: "7f3a9c21-aaaa-4e8f-9a0b-1c2d3e4f5a6b", amountCents: request.amountCents });
      },
    });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));

    expect(await screen.findByRole("heading", { name: "Processing your transfer..." })).toBeInTheDocument();
    expect(screen.getByText(/Transaction ID:/)).toHaveTextContent("Transaction ID: Generating...");
    release();

    expect(await screen.findByText("Transfer initiated")).toBeInTheDocument();
    expect(screen.getByText("Your money transfer is being processed.")).toBeInTheDocument();
    expect(await screen.findByText("Your transfer is being processed. This may take a moment...")).toBeInTheDocument();
    expect(screen.getByText(/Transaction ID:/)).toHaveTextContent("Transaction ID: 7f3a9c21-aaaa-4e8f-9a0b-1c2d3e4f5a6b");
    expect(screen.getByRole("link", { name: "View Transactions" })).toHaveAttribute("href", "/transactions");
    expect(screen.getByRole("link", { name: "Back to Dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(screen.queryByRole("button", { name: "Send Money" })).not.toBeInTheDocument();

    expect(calls.creates).toHaveLength(1);
    expect(calls.creates[0]).toMatchObject({
      recipientName: "Sipho Dlamini",
      recipientPhone: "082 123 4567",
      bank: Bank.STANDARD_BANK,
      amountCents: 15000n,
      paymentMethodId: "pm-2",
      withdrawalLocation: { name: "Menlyn Mall", type: "param" },
    });
    expect(calls.creates[0].idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    await flushAnalytics();
    const transactionEvents = events.filter((e) => e.name.startsWith("transaction_"));
    expect(transactionEvents.map((e) => [e.name, e.properties.step])).toEqual([
      ["transaction_step_completed", 1],
      ["transaction_step_completed", 2],
      ["transaction_step_completed", 3],
      ["transaction_started", undefined],
      ["transaction_step_completed", 4],
    ]);
    expect(transactionEvents[3].properties).toMatchObject({ amount: "150.00", recipientName: "Sipho Dlamini" });
  });

  it("retries a failed request with the same idempotency key and says 'There was a problem processing your transfer.'", async () => {
    const { user, calls } = renderWizard("/send-money", {
      create: (request, attempt) => {
        if (attempt === 1) throw new ConnectError("Failed to fetch", Code.Unavailable);
        return makeTransfer({ amountCents: request.amountCents });
      },
    });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    expect(await screen.findByText("Transaction failed")).toBeInTheDocument();
    expect(screen.getByText("There was a problem processing your transfer.")).toBeInTheDocument();

    // The form is back, as it was; sending again reuses the key, so nothing is charged twice.
    await user.click(await screen.findByRole("button", { name: "Send Money" }));
    expect(await screen.findByText("Transfer initiated")).toBeInTheDocument();
    expect(calls.creates).toHaveLength(2);
    expect(calls.creates[1].idempotencyKey).toBe(calls.creates[0].idempotencyKey);
    await flushAnalytics();
    expect(events.find((e) => e.name === "transaction_failed")?.properties).toEqual({
      amount: "150.00",
      error: "There was a problem processing your transfer.",
    });
  });

  it("shows the server's message when a limit refuses the transfer, and a changed transfer gets a new key", async () => {
    const limit = "This transfer is above your limit of R3,000.00 per transfer. You can send up to R3,000.00.";
    const { user, calls } = renderWizard("/send-money", {
      create: (request, attempt) => {
        if (attempt === 1) throw new ConnectError(limit, Code.FailedPrecondition);
        return makeTransfer({ amountCents: request.amountCents });
      },
    });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    expect(await screen.findByText("Transaction failed")).toBeInTheDocument();
    expect(screen.getByText(limit)).toBeInTheDocument();

    for (let i = 0; i < 3; i++) await user.click(await screen.findByRole("button", { name: "Back" }));
    const amount = screen.getByLabelText("Amount to Send (ZAR)");
    await user.clear(amount);
    await user.type(amount, "100");
    for (let i = 0; i < 3; i++) await user.click(next());
    await user.click(await screen.findByRole("button", { name: "Send Money" }));
    expect(await screen.findByText("Transfer initiated")).toBeInTheDocument();
    expect(calls.creates[1].amountCents).toBe(10000n);
    expect(calls.creates[1].idempotencyKey).not.toBe(calls.creates[0].idempotencyKey);
  });

  it("shows the completed panel with the voucher, SMS and expiry, and its three buttons", async () => {
    const { user } = renderWizard("/send-money", {
      create: (request) => completed(makeTransfer({ id: "c0ffee00-1111-4222-8333-444455556666", amountCents: request.amountCents })),
    });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    expect(await screen.findByText("Your transfer has been completed successfully!")).toBeInTheDocument();
    expect(screen.getByText("4820193746")).toBeInTheDocument();
    // Completed, its SMS not reported yet: the panel does not say it arrived.
    expect(screen.getByText(/gets the voucher number and PIN by SMS on \+27 82 123 4567\./)).toBeInTheDocument();
    expect(screen.getByText(/Valid until/)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Back to Dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(screen.getByRole("link", { name: "View All Transactions" })).toHaveAttribute("href", "/transactions");
    expect(screen.queryByRole("button", { name: "Try Again" })).not.toBeInTheDocument();

    await flushAnalytics();
    expect(events.find((e) => e.name === "transaction_completed")?.properties).toEqual({
      amount: "150.00",
      transactionId: "c0ffee00-1111-4222-8333-444455556666",
      recipientName: "Sipho Dlamini",
    });

    // Send Another Transfer: a fresh, empty wizard at the first step.
    await user.click(screen.getByRole("button", { name: "Send Another Transfer" }));
    expect(await screen.findByLabelText("Amount to Send (ZAR)")).toHaveValue("");
    await expectStep("Amount");
  });

  it("hands the focus from the Send Money button to the result's title, so Tab goes on to its buttons", async () => {
    const { user } = renderWizard("/send-money", {
      create: (request) => completed(makeTransfer({ amountCents: request.amountCents })),
    });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    const title = await screen.findByRole("heading", { name: "Transfer Successful" });
    await vi.waitFor(() => expect(title).toHaveFocus());
    await user.tab();
    expect(document.activeElement).not.toBe(document.body);
    expect(screen.getByRole("status").parentElement).toContainElement(document.activeElement as HTMLElement);
  });

  it("shows 'Transfer Failed', 'Payment processing failed' and the reason, and Try Again sends a new attempt with a new key", async () => {
    const { user, calls } = renderWizard("/send-money", {
      create: (request, attempt) =>
        attempt === 1
          ? makeTransfer({ status: TransferStatus.FAILED, failureReason: "Your card was declined.", amountCents: request.amountCents })
          : makeTransfer({ amountCents: request.amountCents }),
    });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    expect(await screen.findByRole("heading", { name: "Transfer Failed" })).toBeInTheDocument();
    // The supplied error (spec section 4), then the server's reason as its detail.
    const status = screen.getByRole("status");
    expect(within(status).getByText("Payment processing failed")).toBeInTheDocument();
    expect(within(status).getByText("Your card was declined.")).toBeInTheDocument();
    expect(within(status).queryByText(RESULT_TEXT.error)).not.toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Back to Dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(screen.queryByRole("link", { name: "View Transactions" })).not.toBeInTheDocument();
    await flushAnalytics();
    expect(events.find((e) => e.name === "transaction_failed")?.properties).toEqual({
      amount: "150.00",
      error: "Your card was declined.",
    });

    await user.click(screen.getByRole("button", { name: "Try Again" }));
    expect(await screen.findByRole("group", { name: "Select Payment Method" })).toBeInTheDocument();
    await user.click(screen.getByRole("radio", { name: /Everyday Visa/ }));
    await user.click(next());
    await user.click(await screen.findByRole("button", { name: "Send Money" }));
    await screen.findByText("Your transfer is being processed. This may take a moment...");
    expect(calls.creates[1]).toMatchObject({ paymentMethodId: "pm-1", amountCents: 15000n });
    expect(calls.creates[1].idempotencyKey).not.toBe(calls.creates[0].idempotencyKey);
  });

  it("says 'Payment processing failed' and 'Your transfer could not be processed. Please try again.' without a reason", async () => {
    const { user } = renderWizard("/send-money", {
      create: () => makeTransfer({ status: TransferStatus.FAILED }),
    });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    expect(await screen.findByText("Your transfer could not be processed. Please try again.")).toBeInTheDocument();
    expect(screen.getByText("Payment processing failed")).toBeInTheDocument();
    // Failed already when the panel opened: the panel says so, no toast says it again, and none
    // says it is being processed.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.queryByText("Failed to process transaction")).not.toBeInTheDocument();
    expect(screen.queryByText("Transfer initiated")).not.toBeInTheDocument();
  });

  it("says 'Failed to process transaction' once, with the reason, when a live update fails the transfer", async () => {
    const live = liveFeed();
    let transfer: Transfer | undefined;
    const { user, calls } = renderWizard("/send-money", {
      live,
      create: (request) => (transfer = makeTransfer({ status: TransferStatus.PENDING, amountCents: request.amountCents })),
    });
    await vi.waitFor(() => expect(live.open).toBe(1));
    live.push({ cursor: "1", event: { case: "heartbeat", value: {} } });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    await screen.findByText("Your transfer is being processed. This may take a moment...");
    expect(screen.queryByText("Failed to process transaction")).not.toBeInTheDocument();
    await expectToast("Transfer initiated", "Your money transfer is being processed.");

    live.push({ cursor: "2", event: { case: "transferUpdated", value: { transfer: withChanges(transfer!, { status: TransferStatus.PROCESSING }) } } });
    const failed = withChanges(transfer!, { status: TransferStatus.FAILED, failureReason: "Your card has insufficient funds." });
    live.push({ cursor: "3", event: { case: "transferUpdated", value: { transfer: failed } } });
    expect(await screen.findByRole("heading", { name: "Transfer Failed" })).toBeInTheDocument();
    expect(within(screen.getByRole("status")).getByText("Payment processing failed")).toBeInTheDocument();
    expect(within(screen.getByRole("status")).getByText("Your card has insufficient funds.")).toBeInTheDocument();
    await expectToast("Failed to process transaction", "Your card has insufficient funds.");
    // "Being processed" is no longer true: that toast goes, the failure's stays (F10).
    await expectNoToast("Transfer initiated");

    // The same failure again (a replayed event, a re-read) re-renders the panel: still one toast.
    live.push({ cursor: "4", event: { case: "transferUpdated", value: { transfer: withChanges(failed, {}) } } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const toasts = screen.queryAllByRole("listitem").filter((item) => item.textContent?.includes("Failed to process transaction"));
    expect(toasts).toHaveLength(1);
    expect(calls.reads).toBe(0);
  });

  it("says 'Failed to process transaction' with 'Payment processing failed' when the poll finds it failed without a reason", async () => {
    let transfer: Transfer | undefined;
    const { user } = renderWizard("/send-money", {
      create: (request) => (transfer = makeTransfer({ status: TransferStatus.PENDING, amountCents: request.amountCents })),
      get: () => withChanges(transfer!, { status: TransferStatus.FAILED }),
    });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    await screen.findByText("Your transfer is being processed. This may take a moment...");
    await expectNoToast("Failed to process transaction");
    expect(await screen.findByRole("heading", { name: "Transfer Failed" }, { timeout: 10_000 })).toBeInTheDocument();
    const toast = await expectToast("Failed to process transaction", "Payment processing failed");
    expect(toast).toHaveAttribute("data-type", "error");
    await expectNoToast("Transfer initiated");
    expect(screen.getByText("Your transfer could not be processed. Please try again.")).toBeInTheDocument();
  });

  it("shows 'Status Unknown' when the status cannot be determined", async () => {
    const { user } = renderWizard("/send-money", {
      create: () => makeTransfer({ status: TransferStatus.UNSPECIFIED }),
    });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    expect(await screen.findByRole("heading", { name: "Status Unknown" })).toBeInTheDocument();
    expect(
      screen.getByText("We couldn't determine the status of your transfer. Please check your transaction history."),
    ).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "View Transactions" })).toHaveAttribute("href", "/transactions");
    expect(screen.getByRole("link", { name: "Back to Dashboard" })).toHaveAttribute("href", "/dashboard");
  });

  it("follows the live stream: a transfer update completes the panel without polling", async () => {
    const live = liveFeed();
    let transfer: Transfer | undefined;
    const { user, calls } = renderWizard("/send-money", {
      live,
      create: (request) => (transfer = makeTransfer({ status: TransferStatus.PROCESSING, amountCents: request.amountCents })),
    });
    await vi.waitFor(() => expect(live.open).toBe(1));
    live.push({ cursor: "1", event: { case: "heartbeat", value: {} } });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    await screen.findByText("Your transfer is being processed. This may take a moment...");

    live.push({ cursor: "2", event: { case: "transferUpdated", value: { transfer: completed(transfer!) } } });
    expect(await screen.findByText("Your transfer has been completed successfully!")).toBeInTheDocument();
    expect(calls.reads).toBe(0);
  });

  it("after a live 'Cash collected', the panel says the cash was collected, not how to collect it", async () => {
    const live = liveFeed();
    let transfer: Transfer | undefined;
    const { user } = renderWizard("/send-money", {
      live,
      create: (request) =>
        (transfer = completed(makeTransfer({ recipientName: "Thandi Mokoena", amountCents: request.amountCents }))),
    });
    await vi.waitFor(() => expect(live.open).toBe(1));
    live.push({ cursor: "1", event: { case: "heartbeat", value: {} } });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    expect(await screen.findByText(/They withdraw the cash at/)).toBeInTheDocument();

    const collectedAt = new Date();
    collectedAt.setSeconds(0, 0);
    live.push({
      cursor: "2",
      event: {
        case: "transferUpdated",
        value: {
          transfer: withVoucher(transfer!, {
            collectionStatus: CollectionStatus.COLLECTED,
            collectedAtLocation: "FNB ATM Sandton City",
            collectedAt: timestampFromMs(collectedAt.getTime()),
          }),
        },
      },
    });
    const panel = await screen.findByText(/^Thandi Mokoena collected R.* at FNB ATM Sandton City, \d{2}:\d{2}\.$/);
    expect(panel).toHaveTextContent(formatMoney(transfer!.amountCents));
    expect(screen.queryByText(/They withdraw the cash at/)).not.toBeInTheDocument();
    expect(screen.queryByText(/received the voucher number/)).not.toBeInTheDocument();
    expect(screen.queryByText(/Valid until/)).not.toBeInTheDocument();
    expect(screen.getByText(RESULT_TEXT.success)).toBeInTheDocument();
  });

  it("re-reads the status every 3 s while the live stream is down", async () => {
    let transfer: Transfer | undefined;
    const { user, calls } = renderWizard("/send-money", {
      create: (request) => (transfer = makeTransfer({ status: TransferStatus.PENDING, amountCents: request.amountCents })),
      get: (_id, reads) => (reads >= 1 ? completed(transfer!) : transfer!),
    });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    await screen.findByText("Your transfer is being processed. This may take a moment...");
    expect(calls.reads).toBe(0);
    expect(
      await screen.findByText("Your transfer has been completed successfully!", {}, { timeout: 10_000 }),
    ).toBeInTheDocument();
    expect(calls.reads).toBe(1);
  });

  it("adds a card from 'Add New Card', selects it and says 'Card added successfully'", async () => {
    const added = create(PaymentMethodSchema, {
      id: "pm-new",
      name: "New Visa",
      type: PaymentMethodType.CARD,
      lastFour: "4242",
      expiryMonth: 12,
      expiryYear: 2030,
    });
    let addRequest: AddCardRequest | undefined;
    const { user } = renderWizard("/send-money", {
      addCard: (request) => {
        addRequest = request;
        return added;
      },
    });
    await completeAmount(user);
    await completeRecipient(user);
    await user.click(await screen.findByRole("button", { name: "Add New Card" }));

    const dialog = await screen.findByRole("dialog", { name: "Add Payment Method" });
    await user.type(within(dialog).getByLabelText("Card Name"), "New Visa");
    await user.type(within(dialog).getByLabelText("Card Number"), "4242424242424242");
    await user.selectOptions(within(dialog).getByLabelText("Expiry month"), "12");
    await user.selectOptions(within(dialog).getByLabelText("Expiry year"), "30");
    await user.type(within(dialog).getByLabelText("CVV"), "123");
    await user.click(within(dialog).getByRole("button", { name: "Add Payment Method" }));

    expect(await screen.findByText("Card added successfully")).toBeInTheDocument();
    expect(screen.queryByText("Payment method added")).not.toBeInTheDocument(); // one action, one toast
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(await screen.findByRole("radio", { name: "New Visa (•••• 4242)" })).toBeChecked();
    expect(addRequest).toMatchObject({ name: "New Visa", cardNumber: "4242424242424242", expiryMonth: 12, cvv: "123" });

    await user.click(next());
    expect(await screen.findByRole("region", { name: "Transfer details" })).toHaveTextContent("New Visa");
  }, 15_000);

  it("formats amounts in rand, grouped as en-ZA does", async () => {
    const { user } = renderWizard("/send-money?amount=2500");
    await user.click(await screen.findByRole("button", { name: "Next" }));
    const summary = screen.getByRole("region", { name: "Transaction Summary" });
    expect(within(summary).getByText("Send amount").nextElementSibling).toHaveTextContent("R2 500,00"); // the matcher folds the no-break space
  });
});

describe("result panel buttons", () => {
  it("never shows Send Another or Try Again while the transfer is in flight", async () => {
    const { user } = renderWizard("/send-money", {
      create: () => withChanges(makeTransfer(), { status: TransferStatus.PROCESSING }),
    });
    await reachConfirmation(user);
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    await screen.findByText("Your transfer is being processed. This may take a moment...");
    expect(screen.queryByRole("button", { name: "Send Another Transfer" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Try Again" })).not.toBeInTheDocument();
  });
});

describe("the amount: ATMs pay out notes", () => {
  const NOTES = "ATMs pay out notes: choose an amount in multiples of R10.";
  const UNREADABLE = "We can't read that amount. Enter it in rand, such as 150 or 1 500.";

  it("says so as the amount's help, with a whole-rand example and the decimal keypad", async () => {
    renderWizard("/send-money");
    const amount = await screen.findByLabelText("Amount to Send (ZAR)");
    // A text field (a number input drops spaces and commas as they are typed) that asks for
    // the phone's decimal keypad; the example is a multiple of R10, not "0.00".
    expect(amount).not.toHaveAttribute("type", "number");
    expect(amount).toHaveAttribute("inputmode", "decimal");
    expect(amount).toHaveAttribute("placeholder", "e.g. 500");
    expect(amount).toHaveAccessibleDescription(expect.stringContaining(NOTES));
    // The limits are the server's (GetLimits; the fake answers non-default figures): a meter, no copy.
    const meter = await screen.findByTestId("limits-meter");
    expect(meter.textContent?.replace(/\s/g, " ")).toContain("R4 200,00 of R4 200,00 left today · R19 000,00 this month");
  });

  it.each([["155"], ["150.50"], ["5"]])("refuses R%s with the notes rule, as the field's error and in the toast", async (typed) => {
    const { user } = renderWizard("/send-money");
    const amount = await screen.findByLabelText("Amount to Send (ZAR)");
    await user.type(amount, typed);
    await user.click(next());
    expect(await screen.findByText("Invalid amount")).toBeInTheDocument();
    expect(amount).toHaveAttribute("aria-invalid", "true");
    expect(amount).toHaveAccessibleDescription(expect.stringContaining(NOTES));
    // Said once on the page as the error (the hint steps aside), and once in the toast.
    expect(document.getElementById("send-amount-error")).toHaveTextContent(NOTES);
    expect(document.getElementById("send-amount-hint")).toBeNull();
    await expectStep("Amount");
  });

  it.each([
    // Up to R1 000, so that no "Confirm it's you" is asked (it has its own tests).
    ["1 000", 100000n],
    ["1\u00a0000", 100000n],
    ["1,000", 100000n],
    ["1 000,00", 100000n],
    ["1,000.00", 100000n],
    ["20,00", 2000n],
    ["20", 2000n],
    // The field shows an R before the amount, and the page writes "R150,00": the R typed too.
    ["R150", 15000n],
    ["r150", 15000n],
    ["R 1 000,00", 100000n],
  ])("reads %j as the South African amount it is, and sends %s cents", async (typed, cents) => {
    const { user, calls } = renderWizard("/send-money");
    await completeAmount(user, typed);
    await completeRecipient(user);
    await screen.findByRole("radio", { name: /Travel Mastercard/ });
    await user.click(next());
    const details = await screen.findByRole("region", { name: "Transfer details" });
    expect(details).toHaveTextContent(formatMoney(cents).replace(/\s/g, " "));
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    await screen.findByText("Your transfer is being processed. This may take a moment...");
    expect(calls.creates[0].amountCents).toBe(cents);
  });

  it.each([["150,5"], ["1 50"], ["1,500,50"], ["1.500,00"]])(
    "refuses %j, not a multiple of R10 or not an amount, on the amount step",
    async (typed) => {
      const { user, calls } = renderWizard("/send-money");
      const amount = await screen.findByLabelText("Amount to Send (ZAR)");
      await user.type(amount, typed);
      await user.click(next());
      expect(await screen.findByText("Invalid amount")).toBeInTheDocument();
      expect(amount).toHaveAttribute("aria-invalid", "true");
      await expectStep("Amount");
      expect(calls.creates).toHaveLength(0);
    },
  );

  // The spec's 'Please enter a valid amount greater than zero.' is for a missing amount or one of
  // zero or less; text that is no amount at all says so instead.
  it.each([["abc"], ["1,500,50"], ["1.500,00"], ["150R"]])("says it cannot read %j, not that it is not above zero", async (typed) => {
    const { user } = renderWizard("/send-money");
    const amount = await screen.findByLabelText("Amount to Send (ZAR)");
    await user.type(amount, typed);
    await user.click(next());
    await expectToast("Invalid amount", UNREADABLE);
    expect(document.getElementById("send-amount-error")).toHaveTextContent(UNREADABLE);
    expect(amount).toHaveAccessibleDescription(expect.stringContaining(UNREADABLE));
    expect(screen.queryByText("Please enter a valid amount greater than zero.")).not.toBeInTheDocument();
    await expectStep("Amount");
  });

  it("keeps the spec's words for an amount below zero", async () => {
    const { user } = renderWizard("/send-money");
    await user.type(await screen.findByLabelText("Amount to Send (ZAR)"), "-R50");
    await user.click(next());
    await expectToast("Invalid amount", "Please enter a valid amount greater than zero.");
    expect(document.getElementById("send-amount-error")).toHaveTextContent("Please enter a valid amount greater than zero.");
  });

  it("prefills an amount passed as en-ZA writes it (Send Similar's links use 1500.00)", async () => {
    const { user } = renderWizard("/send-money?amount=1%20500&recipient=Sipho%20Dlamini&phone=0821234567&bank=1");
    expect(await screen.findByLabelText("Amount to Send (ZAR)")).toHaveValue("1 500");
    await user.click(next());
    await screen.findByRole("option", { name: "Standard Bank" });
    await user.click(next());
    await screen.findByRole("radio", { name: /Travel Mastercard/ });
    await user.click(next());
    expect(await screen.findByRole("region", { name: "Transfer details" })).toHaveTextContent("R1 500,00");
  });

  it("warns, from the server's figures, when the amount is more than the next transfer may be", async () => {
    const { user } = renderWizard("/send-money");
    const amount = await screen.findByLabelText("Amount to Send (ZAR)");
    await screen.findByTestId("limits-allowance");
    await user.type(amount, "2500");
    expect(screen.queryByText(/in one transfer now/)).toBeNull();
    await user.type(amount, "0"); // R25 000: over the fake's R2 500 per transfer
    const warning = await screen.findByText(/in one transfer now/);
    expect(warning.textContent?.replace(/\s/g, " ")).toBe("You can send up to R2 500,00 in one transfer now.");
  });
});

describe("refused on its own step, as the server would refuse it", () => {
  /** TEST_LIMITS with this much (cents) used today. */
  function usedToday(cents: bigint): GetLimitsResponse {
    return create(GetLimitsResponseSchema, {
      ...TEST_LIMITS,
      limits: TEST_LIMITS.limits.map((limit) =>
        limit.kind === LimitKind.DAILY ? { ...limit, usedCents: cents, remainingCents: limit.limitCents - cents } : limit,
      ),
    });
  }
  const plain = (text: string | null | undefined) => text?.replace(/\s/g, " ");

  it("refuses an amount above the per-transfer limit on the amount step, in the server's words", async () => {
    const { user, calls } = renderWizard("/send-money");
    const amount = await screen.findByLabelText("Amount to Send (ZAR)");
    await screen.findByTestId("limits-allowance");
    await user.type(amount, "2510"); // the fake's per-transfer limit is R2 500
    await user.click(next());
    const message = "This transfer exceeds the limit of R2 500,00 per transfer. You can send up to R2 500,00 in one transfer.";
    await vi.waitFor(() => expect(plain(document.getElementById("send-amount-error")?.textContent)).toBe(message));
    expect(amount).toHaveAttribute("aria-invalid", "true");
    expect(amount.getAttribute("aria-describedby")).toContain("send-amount-error");
    expect(amount).toHaveFocus();
    const toast = await screen.findByText("Invalid amount");
    expect(plain(toast.closest("[data-sonner-toast]")?.textContent)).toContain(message);
    // Said once: the meter's own warning steps aside while the field says it.
    expect(screen.queryByText(/in one transfer now/)).toBeNull();
    await expectStep("Amount");

    await user.clear(amount);
    await user.type(amount, "2500");
    await user.click(next());
    await expectStep("Recipient");
    expect(calls.creates).toHaveLength(0);
  });

  it("refuses an amount above what is left today, naming the daily limit", async () => {
    const { user } = renderWizard("/send-money", { limits: { current: usedToday(320_000n) } });
    const amount = await screen.findByLabelText("Amount to Send (ZAR)");
    await screen.findByTestId("limits-allowance");
    await user.type(amount, "1500");
    await user.click(next());
    await vi.waitFor(() =>
      expect(plain(document.getElementById("send-amount-error")?.textContent)).toBe(
        "This transfer exceeds your daily limit of R4 200,00. You can still send R1 000,00 today.",
      ),
    );
    await expectStep("Amount");
  });

  it("goes back to the amount, without asking 'Confirm it's you', when the limits moved before Send Money", async () => {
    const limits = { current: TEST_LIMITS };
    const { user, calls, queryClient } = renderWizard("/send-money", { limits });
    await screen.findByTestId("limits-allowance");
    await completeAmount(user, "2000"); // above R1,000: a send would ask "Confirm it's you"
    await completeRecipient(user);
    await screen.findByRole("radio", { name: /Travel Mastercard/ });
    await user.click(next());
    await screen.findByRole("heading", { name: "Confirm your transfer" });

    // Meanwhile another tab sent R3 200: R1 000 is left today.
    limits.current = usedToday(320_000n);
    await queryClient.invalidateQueries();
    await user.click(screen.getByRole("button", { name: "Send Money" }));

    await expectStep("Amount");
    const message = "This transfer exceeds your daily limit of R4 200,00. You can still send R1 000,00 today.";
    await vi.waitFor(() => expect(plain(document.getElementById("send-amount-error")?.textContent)).toBe(message));
    expect(await screen.findByText("Invalid amount")).toBeInTheDocument();
    expect(screen.queryByRole("dialog", { name: "Confirm it's you" })).not.toBeInTheDocument();
    expect(calls.creates).toHaveLength(0);
  });

  it.each(["12345", "011 555 0101", "+44 20 7123 4567"])(
    "refuses %j on the recipient step: 'Please enter a valid South African mobile number.'",
    async (phone) => {
      const { user } = renderWizard("/send-money");
      await completeAmount(user);
      await user.type(await screen.findByLabelText("Recipient Name"), "Sipho Dlamini");
      const field = screen.getByLabelText("Recipient Phone Number");
      await user.type(field, phone);
      await screen.findByRole("option", { name: "FNB" });
      await user.selectOptions(screen.getByLabelText("Bank"), "FNB");
      await user.click(next());

      expect(await screen.findByText("Invalid phone number")).toBeInTheDocument(); // the toast
      await vi.waitFor(() => expect(field).toHaveAttribute("aria-invalid", "true"));
      expect(field).toHaveAccessibleDescription(
        "The voucher number and PIN are sent to this number by SMS. Please enter a valid South African mobile number.",
      );
      expect(screen.getByLabelText("Recipient Name")).not.toHaveAttribute("aria-invalid");
      await expectStep("Recipient");

      await user.clear(field);
      await user.type(field, "082 123 4567");
      await user.click(next());
      await expectStep("Payment");
    },
  );

  it.each([
    ["Visit fnb-secure.co.za", "Names can't contain a web address."],
    ["Sipho 2", "Names may only contain letters, spaces, apostrophes, hyphens and full stops."],
    ["--", "The recipient's name must include at least one letter."],
  ])("refuses the recipient %j on the recipient step: %j", async (name, message) => {
    const { user, calls } = renderWizard("/send-money");
    await completeAmount(user);
    const field = await screen.findByLabelText("Recipient Name");
    await user.type(field, name);
    await user.type(screen.getByLabelText("Recipient Phone Number"), "082 123 4567");
    await screen.findByRole("option", { name: "FNB" });
    await user.selectOptions(screen.getByLabelText("Bank"), "FNB");
    await user.click(next());

    const toast = await screen.findByText("Invalid recipient name");
    expect(plain(toast.closest("[data-sonner-toast]")?.textContent)).toContain(message);
    await vi.waitFor(() => expect(field).toHaveAttribute("aria-invalid", "true"));
    expect(field).toHaveAccessibleDescription(message);
    expect(screen.getByLabelText("Recipient Phone Number")).not.toHaveAttribute("aria-invalid");
    await expectStep("Recipient");

    // Initials are a name.
    await user.clear(field);
    await user.type(field, "J.R.R. Tolkien");
    await user.click(next());
    await expectStep("Payment");
    expect(calls.creates).toHaveLength(0);
  });

  it("says a missing detail with the spec's words, not the phone's, when the phone is empty", async () => {
    const { user } = renderWizard("/send-money");
    await completeAmount(user);
    await user.type(await screen.findByLabelText("Recipient Name"), "Sipho Dlamini");
    await user.click(next());
    expect(await screen.findByText("Missing information")).toBeInTheDocument();
    expect(screen.queryByText("Please enter a valid South African mobile number.")).toBeNull();
  });
});

describe("where the cash is collected", () => {
  it("the bank step says the recipient collects at any ATM of the chosen bank", async () => {
    const { user } = renderWizard("/send-money?amount=500");
    await user.click(await screen.findByRole("button", { name: "Next" }));
    const bank = await screen.findByLabelText("Bank");
    expect(bank).toHaveAccessibleDescription("The recipient collects the cash at an ATM of the bank you choose.");
    await screen.findByRole("option", { name: "FNB" });
    await user.selectOptions(bank, "FNB");
    expect(bank).toHaveAccessibleDescription("The recipient collects the cash at any FNB ATM.");
    await user.type(screen.getByLabelText("Recipient Name"), "Thandi");
    expect(bank).toHaveAccessibleDescription("Thandi collects the cash at any FNB ATM.");
  });

  it("the confirmation names the bank's ATMs", async () => {
    const { user } = renderWizard("/send-money?amount=500");
    await user.click(await screen.findByRole("button", { name: "Next" }));
    await completeRecipient(user, "FNB");
    await user.click(await screen.findByRole("button", { name: "Next" }));
    const recipient = await screen.findByRole("region", { name: "Recipient" });
    expect(within(recipient).getByText("Collects at").nextElementSibling).toHaveTextContent("Any FNB ATM");
  });
});

describe("the payment step's title", () => {
  it("stays above the empty state", async () => {
    const { user } = renderWizard("/send-money", { cards: [] });
    await completeAmount(user);
    await completeRecipient(user);
    const empty = await screen.findByRole("heading", { name: "No Payment Methods" });
    const title = screen.getByRole("heading", { name: "Select Payment Method" });
    expect(title.compareDocumentPosition(empty) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });
});

describe("a PIN only the sender knows", () => {
  async function toRecipientStep(user: UserEvent) {
    await completeAmount(user, "500");
    await user.type(await screen.findByLabelText("Recipient Name"), "Thandi");
    await user.type(screen.getByLabelText("Recipient Phone Number"), "082 123 4567");
    await screen.findByRole("option", { name: "FNB" });
    await user.selectOptions(screen.getByLabelText("Bank"), "FNB");
  }

  it("is an option with one sentence on why, and a labelled 4-digit PIN field", async () => {
    const { user } = renderWizard("/send-money");
    await toRecipientStep(user);
    const option = screen.getByRole("checkbox", { name: "I'll give Thandi the PIN myself" });
    expect(option).not.toBeChecked();
    expect(option).toHaveAccessibleDescription(
      "Only you and Thandi will know the PIN, so someone who steals Thandi's phone or SIM cannot withdraw the cash.",
    );
    expect(screen.queryByLabelText("Choose a 4-digit PIN")).not.toBeInTheDocument();
    expect(screen.getByLabelText("Recipient Phone Number")).toHaveAccessibleDescription(
      "The voucher number and PIN are sent to this number by SMS.",
    );

    await user.click(option);
    const pin = screen.getByLabelText("Choose a 4-digit PIN");
    expect(pin).toHaveAttribute("type", "password");
    expect(pin).toHaveAttribute("inputmode", "numeric");
    expect(pin).toHaveAttribute("maxlength", "4");
    expect(screen.getByLabelText("Recipient Phone Number")).toHaveAccessibleDescription("The voucher number is sent to this number by SMS.");
  });

  it.each([
    ["", "Enter 4 digits for the PIN."],
    ["12", "Enter 4 digits for the PIN."],
    ["7777", "The PIN can't be 4 equal digits, such as 1111."],
    ["1234", "The PIN can't be a run of digits, such as 1234 or 4321."],
    ["4321", "The PIN can't be a run of digits, such as 1234 or 4321."],
  ])("refuses %j: %s", async (typed, message) => {
    const { user } = renderWizard("/send-money");
    await toRecipientStep(user);
    await user.click(screen.getByRole("checkbox", { name: "I'll give Thandi the PIN myself" }));
    const pin = screen.getByLabelText("Choose a 4-digit PIN");
    if (typed) await user.type(pin, typed);
    await user.click(next());
    expect(await screen.findByText("Check the PIN")).toBeInTheDocument();
    expect(pin).toHaveAttribute("aria-invalid", "true");
    expect(pin).toHaveAccessibleDescription(expect.stringContaining(message));
    await expectStep("Recipient");
  });

  it("sends the sender's PIN, and the confirmation says whose it is without its digits", async () => {
    const { user, calls } = renderWizard("/send-money");
    await toRecipientStep(user);
    await user.click(screen.getByRole("checkbox", { name: "I'll give Thandi the PIN myself" }));
    await user.type(screen.getByLabelText("Choose a 4-digit PIN"), "7395");
    await user.click(next());
    await screen.findByRole("radio", { name: /Travel Mastercard/ });
    await user.click(next());
    const details = await screen.findByRole("region", { name: "Transfer details" });
    expect(within(details).getByText("PIN").nextElementSibling).toHaveTextContent("Chosen by you: tell Thandi yourself");
    expect(document.body).not.toHaveTextContent("7395");

    await user.click(screen.getByRole("button", { name: "Send Money" }));
    await screen.findByText("Transfer initiated");
    expect(calls.creates[0]).toMatchObject({ amountCents: 50000n, bank: Bank.FNB, senderPin: "7395" });
  });

  it("turned off again, forgets the PIN and sends none", async () => {
    const { user, calls } = renderWizard("/send-money");
    await toRecipientStep(user);
    const option = screen.getByRole("checkbox", { name: "I'll give Thandi the PIN myself" });
    await user.click(option);
    await user.type(screen.getByLabelText("Choose a 4-digit PIN"), "7395");
    await user.click(option);
    await user.click(next());
    await screen.findByRole("radio", { name: /Travel Mastercard/ });
    await user.click(next());
    const details = await screen.findByRole("region", { name: "Transfer details" });
    expect(within(details).getByText("PIN").nextElementSibling).toHaveTextContent("Sent by SMS with the voucher");
    await user.click(screen.getByRole("button", { name: "Send Money" }));
    await screen.findByText("Transfer initiated");
    expect(calls.creates[0].senderPin).toBe("");
  });
});
