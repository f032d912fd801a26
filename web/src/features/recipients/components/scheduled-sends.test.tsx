import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { configure, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  Bank,
  CardBrand,
  GetLimitsResponseSchema,
  PaymentMethodSchema,
  PaymentMethodType,
  PaymentMethodsService,
  RecipientSchema,
  RecipientsService,
  ScheduleFrequency,
  ScheduleSchema,
  ScheduleState,
  SchedulesService,
  SecurityService,
  TransferSchema,
  TransferStatus,
  TransfersService,
} from "@/gen/thumela/bff/v1/bff_pb";
import type { CreateScheduleRequest, QuoteFeeRequest, Schedule } from "@/gen/thumela/bff/v1/bff_pb";
import { addDays, saToday } from "@/lib/date";
import { formatMoney } from "@/lib/money";
import { forgetStepUp, rememberStepUp } from "@/lib/step-up";
import { badRequestDetail, errorWithDetails } from "@/test/error-details";
import { liveFeed } from "@/test/live-feed";
import { SIGNED_IN, TEST_LIMITS, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";

configure({ asyncUtilTimeout: 4000 });
vi.setConfig({ testTimeout: 20_000 });

const TODAY = saToday();
const NALEDI_PHONE = "+27835550101";
const NALEDI = create(RecipientSchema, { id: "r-1", name: "Naledi Mokoena", phone: NALEDI_PHONE, bank: Bank.CAPITEC, lastPaidAt: timestampFromMs(Date.now() - 60_000) });
const CARDS = [
  create(PaymentMethodSchema, { id: "pm-1", name: "Everyday Visa", type: PaymentMethodType.CARD, brand: CardBrand.VISA, lastFour: "4242" }),
  create(PaymentMethodSchema, { id: "pm-2", name: "Travel Mastercard", type: PaymentMethodType.CARD, brand: CardBrand.MASTERCARD, lastFour: "4444", isDefault: true }),
];

function schedule(init: MessageInitShape<typeof ScheduleSchema> & { id: string }): Schedule {
  return create(ScheduleSchema, {
    recipientName: "Naledi Mokoena",
    recipientPhone: NALEDI_PHONE,
    bank: Bank.CAPITEC,
    amountCents: 50_000n,
    paymentMethodId: "pm-1",
    paymentMethodName: "Everyday Visa",
    paymentMethodLastFour: "4242",
    frequency: ScheduleFrequency.WEEKLY,
    startDate: "2026-11-06",
    state: ScheduleState.ACTIVE,
    nextDate: "2026-12-04",
    ...init,
  });
}

const WEEKLY = schedule({
  id: "s-1",
  feeCents: 1_150n,
  totalCents: 51_150n,
  recentOccurrences: [
    { date: "2026-11-20", failureReason: "Your Everyday Visa was declined by the bank." },
    { date: "2026-11-13", transferId: "7a8b9c0d-1111-4000-8000-000000000000", transferStatus: TransferStatus.COMPLETED },
  ],
});
const MONTHLY = schedule({
  id: "s-2",
  recipientName: "Sipho Dlamini",
  recipientPhone: "+27821234567",
  bank: Bank.FNB,
  amountCents: 120_000n,
  frequency: ScheduleFrequency.MONTHLY,
  state: ScheduleState.PAUSED,
  nextDate: "",
  endDate: "2027-06-30",
});

function errorInfo(reason: string) {
  const value = new BinaryWriter().tag(1, WireType.LengthDelimited).string(reason).tag(2, WireType.LengthDelimited).string("transfers.thumela.co.za").finish();
  return errorWithDetails("Refused.", Code.FailedPrecondition, { type: "google.rpc.ErrorInfo", value });
}

interface Options {
  fail?: boolean;
  live?: ReturnType<typeof liveFeed>;
  /** CreateSchedule refuses until the sender stepped up / answered the question. */
  wantsStepUp?: boolean;
  wantsAnswer?: boolean;
  /** The sender paid Naledi before (her completed transfer is in the history). */
  paidBefore?: boolean;
  /** GetLimits says nothing more can be sent today, this month or this year. */
  usedUp?: boolean;
  /** QuoteFee waives the fee (the sender's first transfer), or fails. */
  firstFree?: boolean;
  quoteFails?: boolean;
}

/** Capitec's fee as the fees service quotes it: R10,00 + 0,3 % (half-up), unless waived. */
function quoteFor({ amountCents }: QuoteFeeRequest, waived = false) {
  const bankFeeCents = 1000n;
  const platformFeeCents = (amountCents * 30n + 5_000n) / 10_000n;
  const full = bankFeeCents + platformFeeCents;
  const totalFeeCents = waived ? 0n : full;
  return {
    quote: { amountCents, bankFeeCents, platformFeeCents, totalFeeCents, totalAmountCents: amountCents + totalFeeCents, waived, waivedFeeCents: waived ? full : 0n },
  };
}

/** An in-memory SchedulesService with the saved recipient Naledi and two cards. */
function backend(initial: Schedule[], options: Options = {}) {
  const state = { list: [...initial], creates: [] as CreateScheduleRequest[], quotes: [] as QuoteFeeRequest[], steppedUp: false, finishes: 0 };
  const routes = (r: ConnectRouter) => {
    r.service(RecipientsService, { listRecipients: () => ({ recipients: [NALEDI] }) });
    r.rpc(PaymentMethodsService.method.listPaymentMethods, () => ({ paymentMethods: CARDS }));
    r.rpc(TransfersService.method.quoteFee, (req) => {
      state.quotes.push(req);
      if (options.quoteFails) throw new ConnectError("The fees service is unavailable.", Code.Unavailable);
      return quoteFor(req, options.firstFree);
    });
    if (options.usedUp) {
      r.rpc(TransfersService.method.getLimits, () =>
        create(GetLimitsResponseSchema, { limits: TEST_LIMITS.limits.map((l) => ({ ...l, usedCents: l.limitCents, remainingCents: 0n })) }),
      );
    }
    r.rpc(TransfersService.method.listTransfers, (req) => {
      const paid = options.paidBefore !== false && req.query === NALEDI_PHONE && req.status === TransferStatus.COMPLETED;
      const transfers = paid ? [create(TransferSchema, { id: "t-1", recipientPhone: NALEDI_PHONE, status: TransferStatus.COMPLETED })] : [];
      return { transfers, totalCount: transfers.length };
    });
    r.service(SecurityService, {
      beginStepUp: () => ({ passkey: false }),
      finishStepUp: () => {
        state.finishes += 1;
        state.steppedUp = true;
        return { steppedUpUntil: timestampFromMs(Date.now() + 5 * 60_000) };
      },
    });
    r.service(SchedulesService, {
      listSchedules: () => {
        if (options.fail) throw new ConnectError("unavailable", Code.Unavailable);
        return { schedules: state.list };
      },
      createSchedule: (req) => {
        state.creates.push(req);
        if (options.wantsStepUp && !state.steppedUp) throw errorInfo("STEP_UP_REQUIRED");
        if (options.wantsAnswer && !req.recipientKnownConfirmed) throw errorInfo("RECIPIENT_CONFIRMATION_REQUIRED");
        if (req.amountCents > 200_000n) {
          throw errorWithDetails("Too much.", Code.InvalidArgument, badRequestDetail([{ field: "amount_cents", description: "Each send can be at most R2 000,00." }]));
        }
        const made = schedule({ id: `s-${state.creates.length + 10}`, amountCents: req.amountCents, frequency: req.frequency, startDate: req.startDate, nextDate: req.startDate, endDate: req.endDate });
        state.list = [made, ...state.list];
        return { schedule: made };
      },
      pauseSchedule: (req) => {
        state.list = state.list.map((s) => (s.id === req.scheduleId ? create(ScheduleSchema, { ...s, state: ScheduleState.PAUSED, nextDate: "" }) : s));
        return { schedule: state.list.find((s) => s.id === req.scheduleId) };
      },
      resumeSchedule: (req) => {
        state.list = state.list.map((s) => (s.id === req.scheduleId ? create(ScheduleSchema, { ...s, state: ScheduleState.ACTIVE, nextDate: "2026-12-11" }) : s));
        return { schedule: state.list.find((s) => s.id === req.scheduleId) };
      },
      deleteSchedule: (req) => {
        state.list = state.list.filter((s) => s.id !== req.scheduleId);
        return {};
      },
    });
    options.live?.register(r);
  };
  return { state, routes };
}

async function openPage(list: Schedule[], options: Options = {}) {
  const fake = backend(list, options);
  const app = renderApp("/recipients", { session: SIGNED_IN, routes: fake.routes });
  await screen.findByRole("heading", { level: 1, name: "Recipients" });
  return { ...app, state: fake.state };
}

const section = () => screen.getByRole("region", { name: "Scheduled sends" });

afterEach(() => forgetStepUp());

describe("scheduled sends on /recipients", () => {
  it("says when there are none yet", async () => {
    await openPage([]);
    expect(
      await within(section()).findByText("No scheduled sends yet. Choose “Schedule a send” on a saved recipient to send them money every week or month."),
    ).toBeInTheDocument();
  });

  it("says when they cannot be read, and offers to try again", async () => {
    await openPage([WEEKLY], { fail: true });
    expect(await within(section()).findByText("We couldn't load your scheduled sends.", { selector: "p" })).toBeInTheDocument();
    expect(within(section()).getByRole("button", { name: "Try again" })).toBeInTheDocument();
    await expectToast("We couldn't load your scheduled sends.");
  });

  it("lists each with its state, next date, amount, recipient, card and recent sends, failures with the reason", async () => {
    await openPage([WEEKLY, MONTHLY]);
    const list = await within(section()).findByRole("list", { name: "Your scheduled sends" });
    const [weekly, monthly] = within(list).getAllByRole("region");
    expect(weekly).toHaveAccessibleName("R500,00 to Naledi Mokoena, weekly");
    expect(weekly).toHaveTextContent("Active");
    expect(weekly).toHaveTextContent("Next sendFri 4 Dec 2026");
    expect(weekly).toHaveTextContent("Everyday Visa (•••• 4242)");
    expect(weekly).toHaveTextContent("+27 83 555 0101 · Capitec");
    expect(weekly).toHaveTextContent(/Fee per sendR11,50/);
    expect(weekly).toHaveTextContent(/Total per sendR511,50/);
    const sends = within(weekly).getAllByRole("listitem");
    expect(sends[0]).toHaveTextContent("Fri 20 Nov 2026 · Failed: Your Everyday Visa was declined by the bank.");
    expect(sends[1]).toHaveTextContent("Fri 13 Nov 2026 · Sent, reference 7a8b9c0d");

    expect(monthly).toHaveAccessibleName(/R1\s200,00 to Sipho Dlamini, monthly/);
    expect(monthly).toHaveTextContent("Paused");
    // A schedule the server gave no price for says none, rather than "R0,00".
    expect(monthly).not.toHaveTextContent("Fee per send");
    expect(monthly).toHaveTextContent("until Wed 30 Jun 2027");
    expect(within(monthly).getByText("None yet.")).toBeInTheDocument();
    expect(within(monthly).getByRole("button", { name: /^Resume/ })).toBeInTheDocument();
    expect(within(monthly).queryByRole("button", { name: /^Pause/ })).not.toBeInTheDocument();
  });

  it("says when the schedule's card was deleted since: its next send will fail", async () => {
    await openPage([schedule({ id: "s-4", paymentMethodId: "pm-gone", paymentMethodName: "Old Visa", paymentMethodLastFour: "1111" }), WEEKLY]);
    const [first, second] = within(await within(section()).findByRole("list", { name: "Your scheduled sends" })).getAllByRole("region");
    await vi.waitFor(() =>
      expect(first).toHaveTextContent("Old Visa (•••• 1111)Removed from your account: the next send will fail. Schedule it again with another card."),
    );
    expect(second).not.toHaveTextContent("Removed from your account");
  });

  it("says a send whose transfer failed failed, with its reason, and one still on its way is sending", async () => {
    await openPage([
      schedule({
        id: "s-3",
        recentOccurrences: [
          { date: "2026-11-27", transferId: "1b2c3d4e-1111-4000-8000-000000000000", transferStatus: TransferStatus.PROCESSING },
          {
            date: "2026-11-20",
            transferId: "2c3d4e5f-1111-4000-8000-000000000000",
            transferStatus: TransferStatus.FAILED,
            failureReason: "Your card was declined.",
          },
          { date: "2026-11-13", transferId: "3d4e5f6a-1111-4000-8000-000000000000", transferStatus: TransferStatus.FAILED },
          { date: "2026-11-06", transferId: "4e5f6a7b-1111-4000-8000-000000000000", transferStatus: TransferStatus.COMPLETED },
        ],
      }),
    ]);
    const card = await within(section()).findByRole("region", { name: "R500,00 to Naledi Mokoena, weekly" });
    const sends = within(card).getAllByRole("listitem");
    expect(sends[0]).toHaveTextContent("Fri 27 Nov 2026 · Sending…");
    expect(sends[1]).toHaveTextContent("Fri 20 Nov 2026 · Failed: Your card was declined.");
    expect(sends[1]).not.toHaveTextContent("Sent");
    expect(sends[2]).toHaveTextContent("Fri 13 Nov 2026 · Failed: The payment did not go through.");
    // Completed: the money went.
    expect(sends[3]).toHaveTextContent("Fri 6 Nov 2026 · Sent, reference 4e5f6a7b");
  });

  it("pauses and resumes, with a toast each", async () => {
    const { user } = await openPage([WEEKLY]);
    await user.click(await screen.findByRole("button", { name: "Pause R500,00 to Naledi Mokoena, weekly" }));
    await expectToast("Scheduled send paused", "Nothing more goes to Naledi Mokoena until you resume it.");
    const resume = await screen.findByRole("button", { name: "Resume R500,00 to Naledi Mokoena, weekly" });
    expect(screen.getByRole("region", { name: "R500,00 to Naledi Mokoena, weekly" })).toHaveTextContent("Paused");
    // The keyboard user's focus moves to the button that replaced the one they pressed.
    await vi.waitFor(() => expect(resume).toHaveFocus());
    await user.keyboard("{Enter}");
    await expectToast("Scheduled send resumed");
    await vi.waitFor(() => expect(screen.getByRole("button", { name: "Pause R500,00 to Naledi Mokoena, weekly" })).toHaveFocus());
    expect(await screen.findByText("Fri 11 Dec 2026")).toBeInTheDocument();
  });

  it("deletes only after the sender confirms", async () => {
    const { user, state } = await openPage([WEEKLY]);
    await user.click(await screen.findByRole("button", { name: "Delete R500,00 to Naledi Mokoena, weekly" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Delete scheduled send" });
    await user.click(within(confirm).getByRole("button", { name: "Cancel" }));
    expect(state.list).toHaveLength(1);
    await user.click(screen.getByRole("button", { name: "Delete R500,00 to Naledi Mokoena, weekly" }));
    await user.click(within(await screen.findByRole("alertdialog", { name: "Delete scheduled send" })).getByRole("button", { name: "Delete" }));
    await expectToast("Scheduled send deleted");
    expect(await within(section()).findByText(/No scheduled sends yet/)).toBeInTheDocument();
  });

  it("lists them again when the live stream says they changed", async () => {
    const live = liveFeed();
    const { state } = await openPage([], { live });
    await within(section()).findByText(/No scheduled sends yet/);
    await waitFor(() => expect(live.open).toBe(1));
    state.list = [WEEKLY];
    live.push({ cursor: "9", event: { case: "schedulesChanged", value: {} } });
    expect(await screen.findByRole("region", { name: "R500,00 to Naledi Mokoena, weekly" })).toBeInTheDocument();
  });
});

/** The dialog's "Each send charges" box. */
const chargeBox = (dialog: HTMLElement) => within(dialog).getByRole("region", { name: "Each send charges" });

/** Types an amount (rand) and waits until the dialog shows what each send of it charges. */
async function typeAmount(user: ReturnType<typeof renderApp>["user"], dialog: HTMLElement, rand: string) {
  await user.type(within(dialog).getByLabelText("Amount (ZAR)"), rand);
  const cents = BigInt(rand) * 100n;
  // en-ZA groups thousands with a no-break space; the matcher reads it as a space.
  await waitFor(() => expect(chargeBox(dialog)).toHaveTextContent(`Send amount${formatMoney(cents).replace(/\s/g, " ")}`));
}

describe("Schedule a send", () => {
  async function openDialog(options: Options = {}) {
    const app = await openPage([], options);
    await app.user.click(await screen.findByRole("button", { name: "Schedule a send to Naledi Mokoena" }));
    const dialog = await screen.findByRole("dialog", { name: "Schedule a send" });
    // The default card is chosen once the cards are read.
    await waitFor(() => expect(within(dialog).getByLabelText("Card")).toHaveValue("pm-2"));
    return { ...app, dialog };
  }

  it("checks the form, then schedules with the amount, frequency, dates and card", async () => {
    rememberStepUp(Date.now() + 5 * 60_000);
    const { user, dialog, state } = await openDialog();
    expect(within(dialog).getByLabelText("First send")).toHaveValue(TODAY);
    expect(within(dialog).getByRole("radio", { name: "Weekly" })).toBeChecked();

    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    expect(await within(dialog).findByText("Please enter a valid amount greater than zero.")).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText("Amount (ZAR)"), "155");
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    expect(await within(dialog).findByText("ATMs pay out notes: choose an amount in multiples of R10.")).toBeInTheDocument();
    await user.clear(within(dialog).getByLabelText("Amount (ZAR)"));
    await typeAmount(user, dialog, "500");
    await user.click(within(dialog).getByRole("radio", { name: "Monthly" }));
    await user.type(within(dialog).getByLabelText("End date (optional)"), addDays(TODAY, -1));
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    expect(await within(dialog).findByText("The end date can't be before the first send.")).toBeInTheDocument();
    expect(state.creates).toHaveLength(0);

    await user.clear(within(dialog).getByLabelText("End date (optional)"));
    await user.selectOptions(within(dialog).getByLabelText("Card"), "Everyday Visa (•••• 4242)");
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    await expectToast("Scheduled send created", "R500,00 to Naledi Mokoena every month (R511,50 charged each time)");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(state.creates).toHaveLength(1);
    expect(state.creates[0]).toMatchObject({
      recipientName: "Naledi Mokoena",
      recipientPhone: NALEDI_PHONE,
      bank: Bank.CAPITEC,
      amountCents: 50_000n,
      paymentMethodId: "pm-1",
      frequency: ScheduleFrequency.MONTHLY,
      startDate: TODAY,
      endDate: "",
      recipientKnownConfirmed: false,
    });
    expect(state.creates[0].idempotencyKey).not.toBe("");
    expect(await screen.findByRole("region", { name: "R500,00 to Naledi Mokoena, monthly" })).toBeInTheDocument();
  });

  it("shows the server's refusal under the field it names", async () => {
    rememberStepUp(Date.now() + 5 * 60_000);
    const { user, dialog } = await openDialog();
    // Within the limit policy (R2,500 per transfer), so the form lets it go to the server.
    await typeAmount(user, dialog, "2100");
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    expect(await within(dialog).findByText("Each send can be at most R2 000,00.")).toBeInTheDocument();
    await expectToast("Couldn't schedule the send", "Too much.");
    expect(within(dialog).getByLabelText("Amount (ZAR)")).toHaveAttribute("aria-invalid", "true");
  });

  it("refuses an amount above the per-transfer limit or below the minimum in the server's words, before anything is asked or sent", async () => {
    // No recent step-up: a refused amount above R1,000 must not ask "Confirm it's you" first.
    const { user, dialog, state } = await openDialog();
    const amount = within(dialog).getByLabelText("Amount (ZAR)");
    await user.type(amount, "2510");
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    // TEST_LIMIT_POLICY: R2,500 per transfer, R20 minimum (en-ZA groups with a no-break space).
    expect(
      await within(dialog).findByText(/^This transfer exceeds the limit of R2\s500,00 per transfer\. You can send up to R2\s500,00 in one transfer\.$/),
    ).toBeInTheDocument();
    expect(amount).toHaveAttribute("aria-invalid", "true");
    expect(amount).toHaveFocus();
    expect(screen.queryByRole("dialog", { name: "Confirm it's you" })).not.toBeInTheDocument();

    await user.clear(amount);
    await user.type(amount, "10");
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    expect(await within(dialog).findByText(/^The minimum transfer is R20,00\.$/)).toBeInTheDocument();
    expect(state.creates).toHaveLength(0);

    // The limit itself is allowed (it then asks "Confirm it's you", being above R1,000).
    await user.clear(amount);
    await typeAmount(user, dialog, "2500");
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    await screen.findByRole("dialog", { name: "Confirm it's you" });
    expect(within(dialog).queryByText(/This transfer exceeds/)).not.toBeInTheDocument();
  });

  it("does not refuse on what is left today, this month or this year: each send is checked on its day", async () => {
    rememberStepUp(Date.now() + 5 * 60_000);
    const { user, dialog, state } = await openDialog({ usedUp: true });
    await typeAmount(user, dialog, "500");
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    await expectToast("Scheduled send created");
    expect(state.creates).toHaveLength(1);
    expect(state.creates[0].amountCents).toBe(50_000n);
  });

  it("asks 'Confirm it's you' when the server wants a step-up, then sends the same request again", async () => {
    const { user, dialog, state } = await openDialog({ wantsStepUp: true });
    await typeAmount(user, dialog, "500");
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    const stepUp = await screen.findByRole("dialog", { name: "Confirm it's you" });
    expect(stepUp).toHaveTextContent("before we set up this scheduled send");
    await user.type(within(stepUp).getByLabelText("Password"), "Correct-Horse-42");
    await user.click(within(stepUp).getByRole("button", { name: "Confirm and schedule" }));
    await expectToast("Scheduled send created");
    expect(state.finishes).toBe(1);
    expect(state.creates).toHaveLength(2);
    expect(state.creates[1].idempotencyKey).toBe(state.creates[0].idempotencyKey);
  });

  it("asks first for a step-up above R1,000 (predicted, as the wizard does)", async () => {
    const { user, dialog, state } = await openDialog();
    await typeAmount(user, dialog, "1500");
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    const stepUp = await screen.findByRole("dialog", { name: "Confirm it's you" });
    expect(state.creates).toHaveLength(0);
    await user.type(within(stepUp).getByLabelText("Password"), "Correct-Horse-42");
    await user.click(within(stepUp).getByRole("button", { name: "Confirm and schedule" }));
    await expectToast("Scheduled send created");
    expect(state.creates).toHaveLength(1);
  });

  it("asks the first-payment question when the server does, and sends the answer under a new key", async () => {
    rememberStepUp(Date.now() + 5 * 60_000);
    const { user, dialog, state } = await openDialog({ wantsAnswer: true });
    await typeAmount(user, dialog, "500");
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    await expectToast("Do you know Naledi Mokoena personally?");
    const tick = await within(dialog).findByRole("checkbox", { name: "Yes, I know Naledi Mokoena personally" });
    expect(within(dialog).getByRole("button", { name: "Schedule send" })).toBeDisabled();
    await user.click(tick);
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    await expectToast("Scheduled send created");
    expect(state.creates).toHaveLength(2);
    expect(state.creates[1].recipientKnownConfirmed).toBe(true);
    expect(state.creates[1].idempotencyKey).not.toBe(state.creates[0].idempotencyKey);
  });

  // The walk's F13: R150 monthly was charged R160,45 each time, and the dialog never said so.
  it("shows the fee and the total each send charges before the sender confirms, from QuoteFee", async () => {
    rememberStepUp(Date.now() + 5 * 60_000);
    const { user, dialog, state } = await openDialog();
    expect(chargeBox(dialog)).toHaveTextContent("Enter the amount to see the fee and the total each send charges.");
    await typeAmount(user, dialog, "150");
    const box = chargeBox(dialog);
    const line = (term: string) => within(box).getByText(term, { selector: "dt" }).nextElementSibling;
    expect(line("Send amount")).toHaveTextContent("R150,00");
    expect(line("Bank fee")).toHaveTextContent("R10,00");
    expect(line("Platform fee")).toHaveTextContent("R0,45");
    expect(line("Fee per send")).toHaveTextContent("R10,45");
    expect(line("Total per send")).toHaveTextContent("R160,45");
    expect(box).toHaveTextContent("R160,45 is charged to your card every week.");
    expect(state.quotes.at(-1)).toMatchObject({ bank: Bank.CAPITEC, amountCents: 15_000n });

    await user.click(within(dialog).getByRole("radio", { name: "Monthly" }));
    expect(box).toHaveTextContent("R160,45 is charged to your card every month.");
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    await expectToast("Scheduled send created", "R150,00 to Naledi Mokoena every month (R160,45 charged each time)");
    expect(state.creates).toHaveLength(1);
  });

  it("shows the full fee when the first transfer would be free: the waiver is decided per send", async () => {
    rememberStepUp(Date.now() + 5 * 60_000);
    const { user, dialog } = await openDialog({ firstFree: true });
    await typeAmount(user, dialog, "150");
    const box = chargeBox(dialog);
    expect(within(box).getByText("Total per send", { selector: "dt" }).nextElementSibling).toHaveTextContent("R160,45");
    expect(box).toHaveTextContent("Your first transfer is free: if a send of this schedule is your first transfer, its fee is waived.");
  });

  it("schedules nothing until the fee and total are shown, and says why", async () => {
    rememberStepUp(Date.now() + 5 * 60_000);
    const { user, dialog, state } = await openDialog({ quoteFails: true });
    await user.type(within(dialog).getByLabelText("Amount (ZAR)"), "500");
    expect(await within(chargeBox(dialog)).findByText("The fee could not be worked out right now.")).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Schedule send" }));
    await expectToast("Check what each send charges", "The fee could not be worked out right now. Please try again.");
    expect(state.creates).toHaveLength(0);
  });
});
