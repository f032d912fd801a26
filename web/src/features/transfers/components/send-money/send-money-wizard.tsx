import { zodResolver } from "@hookform/resolvers/zod";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { useTransport } from "@connectrpc/connect-query";
import { useEffect, useMemo, useRef, useState } from "react";
import type { ComponentType, FormEvent } from "react";
import { FormProvider, useForm, useWatch } from "react-hook-form";
import { useSearchParams } from "react-router";
import { toast } from "sonner";
import { Card } from "@/components/ui/card";
import { TransferStatus, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { Bank, PaymentMethod } from "@/gen/thumela/bff/v1/bff_pb";
import { track } from "@/lib/analytics";
import { formatDay, saToday } from "@/lib/date";
import { errorMessage } from "@/lib/errors";
import { failureToast } from "@/lib/failure-toast";
import { centsToDecimal, formatMoney, parseRandToCents } from "@/lib/money";
import { saMobileE164 } from "@/lib/phone";
import { useEffectOnChange } from "@/lib/use-effect-on-change";
import { FREQUENCY_WORDS, useCreateSchedule } from "@/lib/schedules";
import { useDebouncedValue } from "@/lib/use-debounced-value";
import {
  DEFAULT_LOCATION,
  EMPTY_VALUES,
  MESSAGES,
  NAME_TOAST_TITLE,
  PHONE_TOAST_TITLE,
  PIN_TOAST_TITLE,
  STEP_FIELDS,
  STEP_MESSAGES,
  WIZARD_STEPS,
  newIdempotencyKey,
  prefillFromSearch,
  sendMoneySchema,
} from "../../api/send-money";
import type { SendMoneyValues, WithdrawalLocationInit, WizardStep } from "../../api/send-money";
import { useBanks, useCreateTransfer, usePaymentCards, useRememberTransfer } from "../../api/transfers";
import { limitProblem } from "@/lib/limit-check";
import { useLimits } from "../limits-meter";
import { isStepUpRequired, predictStepUp } from "@/lib/step-up";
import { isRecipientConfirmationRequired, recipientKey, usePaidBefore } from "@/lib/recipient-confirmation";
import { RecipientQuestion } from "@/components/recipient-question";
import { StepIndicator } from "./step-indicator";
import { useWizardHistory } from "./wizard-history";
import { AmountStep, ConfirmStep, PaymentStep, RecipientStep, StepActions } from "./steps";
import { TransactionSummary } from "./transaction-summary";
import { StepUpDialog } from "@/components/step-up-dialog";
import { usePreferSavedRecipient } from "./saved-recipients";
import { SubmittingPanel, TransferResult, initiatedToastId } from "./transfer-result";
import { NO_REPEAT, REPEAT_MESSAGES, RepeatSendOption, repeatProblem, repeatStart } from "./repeat-send";
import type { RepeatChoice } from "./repeat-send";

/** The add-card dialog the payment-methods feature provides (composed in by the route). */
export interface AddCardDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onAdded: (paymentMethod: PaymentMethod) => void;
}

interface SendMoneyWizardProps {
  /** The payment-methods feature's dialog, for 'Add New Card' and 'Add Payment Method'. */
  AddCardDialog?: ComponentType<AddCardDialogProps>;
}

// Answers that mean the server took nothing from this attempt: a changed request may then
// use a fresh idempotency key. After anything else (network, timeout, internal) the outcome is
// unknown, so the same key is kept and the server answers the first result.
const REFUSAL_CODES = new Set([
  Code.InvalidArgument,
  Code.FailedPrecondition,
  Code.AlreadyExists,
  Code.NotFound,
  Code.PermissionDenied,
  Code.ResourceExhausted,
]);

interface Attempt {
  key: string;
  /** The key of the repeat's schedule, made after this attempt's transfer. */
  scheduleKey: string;
  /** The request last sent with this key. */
  body?: string;
  refused: boolean;
}

const freshAttempt = (): Attempt => ({ key: newIdempotencyKey(), scheduleKey: newIdempotencyKey(), refused: false });

/** A create request without its idempotency key (kept by the attempt). */
interface CreateBody {
  recipientName: string;
  recipientPhone: string;
  bank: Bank;
  amountCents: bigint;
  paymentMethodId: string;
  withdrawalLocation: WithdrawalLocationInit;
  senderPin: string;
  /** The sender unticked 'Save {name} for next time'. */
  doNotSaveRecipient: boolean;
  /** The sender ticked "Do you know {name} personally? ..." (a first payment to the phone). */
  recipientKnownConfirmed: boolean;
}

/**
 * The toast of a step's Next that refused (the spec's 'Invalid amount', 'Missing information',
 * …), under one id: pressing Next again replaces it rather than stacking a copy per press, and a
 * step that goes on dismisses it, so 'Invalid amount' is not left over the recipient step.
 */
const stepToast = failureToast("send-money-step");

/** The toast when the server asks the first-payment question the page did not predict. */
const MESSAGES_RECIPIENT_QUESTION = "Please answer the question below, then press Send Money again.";

/** Amount → recipient → payment → confirmation, then the result panel. */
export function SendMoneyWizard({ AddCardDialog }: SendMoneyWizardProps) {
  const [searchParams] = useSearchParams();
  const [initial] = useState(() => prefillFromSearch(searchParams));
  const [location, setLocation] = useState<WithdrawalLocationInit>(initial.location);
  const form = useForm<SendMoneyValues>({ resolver: zodResolver(sendMoneySchema), defaultValues: initial.values });
  usePreferSavedRecipient(form, initial.values.recipientPhone);
  const [transferId, setTransferId] = useState<string>();
  // The sender's limits as GetLimits last said (the meter's figures; the live stream refreshes
  // them). An amount the server would refuse is refused on the amount step, in its words, not
  // after the recipient, the card and "Confirm it's you". Unknown figures refuse nothing.
  const limits = useLimits();
  const withinLimits = (focus: boolean) => {
    const problem = limitProblem(parseRandToCents(form.getValues("amount")) ?? 0n, limits.data);
    if (problem) form.setError("amount", { type: "limit", message: problem }, { shouldFocus: focus });
    return problem === undefined;
  };

  /** The step's own checks, as its Next makes them: the toast and the messages when they fail. */
  const checkStep = async (current: 1 | 2 | 3) => {
    const ok = (await form.trigger(STEP_FIELDS[current])) && (current !== 1 || withinLimits(true));
    if (ok) {
      stepToast.dismiss();
    } else {
      const { title, description } = stepRefusal(current, (field) => form.getFieldState(field).error?.message);
      stepToast.show(title, { description });
    }
    return ok;
  };

  // The step lives in the browser's history (Back and Forward move between steps).
  const wizard = useWizardHistory({
    validThrough: (to) => validThrough(form.getValues(), to, limits.data),
    closed: transferId !== undefined,
    onRefused: (refused) => {
      if (refused < 4) void checkStep(refused as 1 | 2 | 3);
    },
  });
  const step = wizard.step;
  const attempt = useRef<Attempt>(undefined);
  attempt.current ??= freshAttempt();

  const banks = useBanks();
  const bankOptions = banks.data?.banks ?? [];
  const payment = usePaymentCards();
  const [addedCard, setAddedCard] = useState<PaymentMethod>();
  const [addCardOpen, setAddCardOpen] = useState(false);
  const cards = useMemo(() => {
    // A card just added shows at once, before the refreshed list arrives.
    if (!addedCard) return payment.cards;
    const list = payment.cards ?? [];
    return list.some((card) => card.id === addedCard.id) ? list : [...list, addedCard];
  }, [payment.cards, addedCard]);
  const create = useCreateTransfer();
  const createSchedule = useCreateSchedule();
  const [repeat, setRepeat] = useState<RepeatChoice>(NO_REPEAT);
  // The repeat waiting for "Confirm it's you" (the transfer went out; its schedule did not yet).
  const [scheduleStepUp, setScheduleStepUp] = useState<{ body: CreateBody; attempt: Attempt; repeat: RepeatChoice }>();
  const remember = useRememberTransfer();
  const transport = useTransport();
  const transfersClient = useMemo(() => createClient(TransfersService, transport), [transport]);
  // The transfer waiting for "Confirm it's you": sent (with its key) once the sender confirms.
  const [stepUp, setStepUp] = useState<{ body: CreateBody; attempt: Attempt; amount: string }>();
  // The browser's Back under "Confirm it's you" leaves the confirmation: the send the dialog
  // was for is dropped with it, so no money goes out while another step is on screen.
  if (stepUp && step !== 4) setStepUp(undefined);
  const [checking, setChecking] = useState(false);
  // The first-payment question: the recipient (recipientKey) the sender ticked "I know them" for,
  // and the one the server asked about when this page's prediction missed.
  const [knownFor, setKnownFor] = useState<string>();
  const [askedFor, setAskedFor] = useState<string>();
  const [recipientNameText, recipientPhoneText] = useWatch({ control: form.control, name: ["recipientName", "recipientPhone"] });
  const recipientPhoneE164 = saMobileE164(recipientPhoneText ?? "");
  const reviewedRecipient = recipientKey(recipientNameText ?? "", recipientPhoneE164);
  const paid = usePaidBefore(transfersClient, recipientPhoneE164, step === 4 && !transferId);
  const askKnown = paid === false || askedFor === reviewedRecipient;
  const unanswered = askKnown && knownFor !== reviewedRecipient;

  // The default card is preselected when none is chosen yet, otherwise the first.
  useEffect(() => {
    if (!cards?.length || form.getValues("paymentMethodId")) return;
    form.setValue("paymentMethodId", (cards.find((card) => card.isDefault) ?? cards[0]).id);
  }, [cards, form]);

  const stepRef = useStepFocus(step);

  const [amountText, bankText] = useWatch({ control: form.control, name: ["amount", "bank"] });
  const quotedAmount = useDebouncedValue(parseRandToCents(amountText ?? ""), 300);
  const quotedBank = bankText ? (Number(bankText) as Bank) : undefined;

  const nextStep = async () => {
    if (step === 4) return;
    if (!(await checkStep(step))) return;
    track("transaction_step_completed", { step, stepName: WIZARD_STEPS[step - 1].id });
    wizard.next();
  };

  const send = async (values: SendMoneyValues) => {
    if (!withinLimits(false)) {
      // The limits moved since the amount step (a send from another tab, a schedule): back to
      // it, with the server's words, before anything is sent or "Confirm it's you" is asked.
      wizard.reopen(1);
      const { title, description } = stepRefusal(1, (field) => form.getFieldState(field).error?.message);
      stepToast.show(title, { description });
      return;
    }
    const amountCents = parseRandToCents(values.amount) ?? 0n;
    const body: CreateBody = {
      recipientName: values.recipientName.trim(),
      recipientPhone: values.recipientPhone.trim(),
      bank: Number(values.bank) as Bank,
      amountCents,
      paymentMethodId: values.paymentMethodId,
      withdrawalLocation: location,
      // Only when the sender chose to give the PIN themselves; it lives in this request alone.
      senderPin: values.ownPin ? values.senderPin : "",
      doNotSaveRecipient: values.saveRecipient === false,
      recipientKnownConfirmed: knownFor === recipientKey(values.recipientName, saMobileE164(values.recipientPhone)),
    };
    const fingerprint = JSON.stringify({ ...body, amountCents: amountCents.toString() });
    let current = attempt.current ?? freshAttempt();
    if (current.refused && current.body !== fingerprint) current = freshAttempt();
    current.body = fingerprint;
    attempt.current = current;

    const amount = centsToDecimal(amountCents);
    track("transaction_started", { amount, recipientName: body.recipientName });
    // Above R1,000 or to a phone never paid, the server wants a fresh step-up: ask first.
    setChecking(true);
    const ask = await predictStepUp(transfersClient, amountCents, saMobileE164(body.recipientPhone)).finally(() => setChecking(false));
    if (ask) {
      setStepUp({ body, attempt: current, amount });
      return;
    }
    await submit(body, current, amount, false);
  };

  const submit = async (body: CreateBody, current: Attempt, amount: string, steppedUp: boolean) => {
    try {
      const { transfer } = await create.mutateAsync({ idempotencyKey: current.key, ...body });
      if (!transfer) throw new Error("The server did not return the transfer.");
      remember(transfer);
      // The mutation keeps its variables (the sender's PIN among them) until reset: drop them.
      create.reset();
      setTransferId(transfer.id);
      track("transaction_step_completed", { step: 4, stepName: "confirmation" });
      // A transfer that failed already (a replay of an attempt that failed) is not "being
      // processed": the result panel opens on "Transfer Failed" and says why.
      if (transfer.status !== TransferStatus.FAILED) {
        toast.success(MESSAGES.initiated.title, {
          id: initiatedToastId(transfer.id),
          description: MESSAGES.initiated.description,
        });
      }
      if (repeat.on) void scheduleRepeat(body, current, repeat, false);
    } catch (error) {
      if (isRecipientConfirmationRequired(error)) {
        // The server's backstop (the history could not be read, or changed): ask the question;
        // nothing was created, so the sender's answer goes out as a new attempt.
        create.reset();
        current.refused = true;
        setKnownFor(undefined);
        setAskedFor(recipientKey(body.recipientName, saMobileE164(body.recipientPhone)));
        toast.error(`Do you know ${body.recipientName} personally?`, { description: MESSAGES_RECIPIENT_QUESTION });
        return;
      }
      if (!steppedUp && isStepUpRequired(error)) {
        // The server's backstop (the prediction missed): ask, then send again with the same key.
        create.reset();
        setStepUp({ body, attempt: current, amount });
        return;
      }
      current.refused = error instanceof ConnectError && REFUSAL_CODES.has(error.code);
      const description = errorMessage(error, MESSAGES.transferFailedFallback);
      toast.error(MESSAGES.transferFailed, { description });
      track("transaction_failed", { amount, error: description });
    }
  };

  /**
   * 'Repeat this send': the same send as a schedule whose first occurrence is one period after
   * today (today's is the transfer just made). Its failure leaves the transfer as it is.
   */
  const scheduleRepeat = async (body: CreateBody, current: Attempt, choice: RepeatChoice, steppedUp: boolean) => {
    const startDate = repeatStart(choice.frequency, saToday());
    try {
      await createSchedule.mutateAsync({
        idempotencyKey: current.scheduleKey,
        recipientName: body.recipientName,
        recipientPhone: body.recipientPhone,
        bank: body.bank,
        amountCents: body.amountCents,
        paymentMethodId: body.paymentMethodId,
        frequency: choice.frequency,
        startDate,
        endDate: choice.endDate,
        recipientKnownConfirmed: body.recipientKnownConfirmed,
      });
      // Made: trying a failed transfer again must not schedule the same sends twice.
      setRepeat(NO_REPEAT);
      toast.success(REPEAT_MESSAGES.created, {
        description: `${formatMoney(body.amountCents)} to ${body.recipientName} ${FREQUENCY_WORDS[choice.frequency]}, next on ${formatDay(startDate)}.`,
      });
    } catch (error) {
      if (!steppedUp && isStepUpRequired(error)) {
        setScheduleStepUp({ body, attempt: current, repeat: choice });
        return;
      }
      toast.error(REPEAT_MESSAGES.failed, { description: errorMessage(error, REPEAT_MESSAGES.failedFallback) });
    }
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    if (step < 4) {
      event.preventDefault();
      void nextStep();
      return;
    }
    if (unanswered || paid === "loading" || repeatProblem(repeat)) {
      // Enter on the review step while 'Send Money' waits for the sender's answer.
      event.preventDefault();
      return;
    }
    void form.handleSubmit(send, () => toast.error(MESSAGES.incomplete))(event);
  };

  const onCardAdded = (card: PaymentMethod) => {
    setAddedCard(card);
    form.setValue("paymentMethodId", card.id, { shouldValidate: form.formState.isSubmitted });
    form.clearErrors("paymentMethodId");
    setAddCardOpen(false);
    toast.success(MESSAGES.cardAdded);
  };

  const tryAgain = () => {
    // A new attempt (the failed transfer keeps its key); the details stay, the card can change.
    attempt.current = freshAttempt();
    setTransferId(undefined);
    wizard.resume(3);
  };

  const sendAnother = () => {
    attempt.current = freshAttempt();
    form.reset(EMPTY_VALUES);
    setLocation(DEFAULT_LOCATION);
    setAddedCard(undefined);
    setTransferId(undefined);
    setRepeat(NO_REPEAT);
    wizard.restart();
  };

  return (
    <div className="mx-auto w-full max-w-5xl">
      <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Send Money</h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">
        Send money to any ATM in South Africa quickly and securely.
      </p>
      {transferId ? (
        <div className="mt-6">
          <TransferResult transferId={transferId} onTryAgain={tryAgain} onSendAnother={sendAnother} />
        </div>
      ) : (
        // One column (minmax(0, 1fr)) below 1024 px: the wizard never widens the page beside the sidebar.
        <div className="mt-6 grid grid-cols-1 items-start gap-6 lg:grid-cols-3">
          <div className="min-w-0 lg:col-span-2">
            {create.isPending ? (
              <SubmittingPanel />
            ) : (
              <Card className="p-4 sm:p-6">
                <StepIndicator current={step} />
                <FormProvider {...form}>
                  <form ref={stepRef} noValidate onSubmit={onSubmit} aria-label="Send money" className="mt-6">
                    {step === 1 && <AmountStep />}
                    {step === 2 && <RecipientStep banks={bankOptions} banksLoading={banks.isPending} />}
                    {step === 3 && (
                      <PaymentStep
                        cards={cards}
                        loading={payment.isPending}
                        failed={
                          payment.isError
                            ? { retry: () => void payment.refetch(), retrying: payment.isFetching }
                            : undefined
                        }
                        onAddCard={AddCardDialog ? () => setAddCardOpen(true) : undefined}
                      />
                    )}
                    {step === 4 && <ConfirmStep location={location} banks={bankOptions} cards={cards} />}
                    {step === 4 && (
                      <RepeatSendOption value={repeat} onChange={setRepeat} recipientName={recipientNameText ?? ""} />
                    )}
                    {step === 4 && askKnown && (
                      <RecipientQuestion
                        name={recipientNameText ?? ""}
                        checked={knownFor === reviewedRecipient}
                        onCheckedChange={(checked) => setKnownFor(checked ? reviewedRecipient : undefined)}
                      />
                    )}
                    <StepActions
                      onBack={step > 1 ? wizard.back : undefined}
                      next={step === 4 ? "Send Money" : "Next"}
                      busy={checking}
                      disabled={step === 4 && (unanswered || paid === "loading" || repeatProblem(repeat) !== undefined)}
                    />
                  </form>
                </FormProvider>
              </Card>
            )}
          </div>
          <aside aria-labelledby="summary-title" className="min-w-0">
            <TransactionSummary amountCents={quotedAmount} bank={quotedBank} />
          </aside>
        </div>
      )}
      <StepUpDialog
        open={stepUp !== undefined}
        onCancel={() => setStepUp(undefined)}
        onConfirmed={() => {
          const pending = stepUp;
          setStepUp(undefined);
          if (pending) void submit(pending.body, pending.attempt, pending.amount, true);
        }}
      />
      <StepUpDialog
        open={scheduleStepUp !== undefined}
        description="Your transfer went out. To keep your money safe, confirm it's you before we schedule the next sends."
        confirmLabel="Confirm and schedule"
        onCancel={() => {
          setScheduleStepUp(undefined);
          toast.error(REPEAT_MESSAGES.failed, { description: REPEAT_MESSAGES.failedFallback });
        }}
        onConfirmed={() => {
          const pending = scheduleStepUp;
          setScheduleStepUp(undefined);
          if (pending) void scheduleRepeat(pending.body, pending.attempt, pending.repeat, true);
        }}
      />
      {AddCardDialog && <AddCardDialog open={addCardOpen} onOpenChange={setAddCardOpen} onAdded={onCardAdded} />}
    </div>
  );
}

/**
 * The toast of a step that cannot go on: the spec's title and words, except where this client's
 * own rules refused (the amount's notes rule or limit, the recipient's name or phone, the
 * sender's PIN), which say why.
 */
function stepRefusal(step: 1 | 2 | 3, fieldError: (field: keyof SendMoneyValues) => string | undefined) {
  const spec = STEP_MESSAGES[step];
  if (step === 1) return { title: spec.title, description: fieldError("amount") ?? spec.description };
  if (step === 2) {
    const missing = (["recipientName", "recipientPhone", "bank"] as const).some(
      (field) => fieldError(field) === MESSAGES.missingRecipient.description,
    );
    const name = fieldError("recipientName");
    if (!missing && name) return { title: NAME_TOAST_TITLE, description: name };
    const phone = fieldError("recipientPhone");
    if (!missing && phone) return { title: PHONE_TOAST_TITLE, description: phone };
    const pin = fieldError("senderPin");
    if (!missing && pin) return { title: PIN_TOAST_TITLE, description: pin };
  }
  return { title: spec.title, description: spec.description };
}

/**
 * The furthest step, up to `to`, that `values` reach: the first of the earlier steps whose own
 * Next would refuse them (its fields under the form's schema, and the amount step's limits as
 * GetLimits last said), else `to`. Synchronous, so a step the form does not allow is never shown,
 * not even for a frame, when the browser's Forward or a typed URL asks for it.
 */
function validThrough(values: SendMoneyValues, to: WizardStep, limits: Parameters<typeof limitProblem>[1]): WizardStep {
  const parsed = sendMoneySchema.safeParse(values);
  const failing = new Set<PropertyKey>(parsed.success ? [] : parsed.error.issues.map((issue) => issue.path[0]));
  for (const step of [1, 2, 3] as const) {
    if (step >= to) break;
    const overLimit = step === 1 && limitProblem(parseRandToCents(values.amount) ?? 0n, limits) !== undefined;
    if (overLimit || STEP_FIELDS[step].some((field) => failing.has(field))) return step;
  }
  return to;
}

/**
 * Moves keyboard focus to the first field of a step when the step changes (not on first show),
 * or to the option already chosen in a step that is a choice (the payment step's card), or to
 * the heading of a step that is read before it is acted on (the confirmation, whose first
 * control, 'Repeat this send', sits below the details to confirm). Only a
 * radio counts as a choice: the recipient step's ticked 'save this recipient' box sits at its
 * bottom, and taking focus there skipped the name and number. A step whose first field follows
 * buttons marks it `data-step-focus`: the recipient step's saved-recipient cards come before
 * 'Recipient Name', and with the focus on a card, the space in a typed name pressed it and
 * filled in another person.
 */
function useStepFocus(step: WizardStep) {
  const ref = useRef<HTMLFormElement>(null);
  useEffectOnChange(() => {
    const form = ref.current;
    const target =
      form?.querySelector<HTMLElement>("[data-step-focus]") ??
      form?.querySelector<HTMLElement>('input[type="radio"]:checked') ??
      form?.querySelector<HTMLElement>("input, select, textarea, button");
    target?.focus();
  }, [step]);
  return ref;
}
