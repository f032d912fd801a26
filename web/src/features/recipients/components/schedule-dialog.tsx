import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { useTransport } from "@connectrpc/connect-query";
import { zodResolver } from "@hookform/resolvers/zod";
import { useEffect, useMemo, useRef, useState } from "react";
import { useForm, useWatch } from "react-hook-form";
import { toast } from "sonner";
import { RecipientQuestion } from "@/components/recipient-question";
import { StepUpDialog } from "@/components/step-up-dialog";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent } from "@/components/ui/dialog";
import { FieldError } from "@/components/ui/field-error";
import { Input, Label } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { Recipient, ScheduleFrequency } from "@/gen/thumela/bff/v1/bff_pb";
import { BANK_NAME } from "@/lib/banks";
import { cn } from "@/lib/cn";
import { addDays, formatDay, saToday } from "@/lib/date";
import { errorMessage, fieldViolations } from "@/lib/errors";
import { feeWithoutWaiver, useFeeQuote } from "@/lib/fee-quote";
import { useLimitPolicy } from "@/lib/limit-policy";
import { formatMoney, parseRandToCents } from "@/lib/money";
import { usePaymentCards } from "@/lib/payment-cards";
import { isRecipientConfirmationRequired } from "@/lib/recipient-confirmation";
import { FREQUENCY_WORDS, useCreateSchedule } from "@/lib/schedules";
import { isStepUpRequired, predictStepUp } from "@/lib/step-up";
import { formatPhone } from "@/lib/phone";
import { useDebouncedValue } from "@/lib/use-debounced-value";
import { FREQUENCY_OF, SCHEDULE_MESSAGES, scheduleSchema } from "../api/schedules";
import type { ScheduleFormValues } from "../api/schedules";
import { ScheduleCharge } from "./schedule-charge";

interface ScheduleSendDialogProps {
  recipient?: Recipient;
  returnFocus?: HTMLElement | null;
  onClose: () => void;
}

/** 'Schedule a send' from a saved recipient's card: the form is mounted afresh each time. */
export function ScheduleSendDialog({ recipient, returnFocus, onClose }: ScheduleSendDialogProps) {
  return (
    <Dialog open={Boolean(recipient)} onOpenChange={(open) => !open && onClose()}>
      {recipient && (
        <DialogContent
          title="Schedule a send"
          description={`Send ${recipient.name} money every week or every month. Each send is an ordinary transfer, charged to the card you choose.`}
          returnFocus={returnFocus}
        >
          <ScheduleForm recipient={recipient} onDone={onClose} />
        </DialogContent>
      )}
    </Dialog>
  );
}

/** A create request without its idempotency key (kept by the attempt). */
interface ScheduleBody {
  recipientName: string;
  recipientPhone: string;
  bank: Recipient["bank"];
  amountCents: bigint;
  paymentMethodId: string;
  frequency: ScheduleFrequency;
  startDate: string;
  endDate: string;
  recipientKnownConfirmed: boolean;
}

// Answers that mean the server took nothing: a changed request may use a fresh key. After
// anything else the outcome is unknown, so the same key goes again and the server answers the
// first result.
const REFUSAL_CODES = new Set([Code.InvalidArgument, Code.FailedPrecondition, Code.AlreadyExists, Code.NotFound, Code.PermissionDenied, Code.ResourceExhausted]);

/** The server's field names (and their camelCase) → the form's. */
const FIELD_OF: Record<string, keyof ScheduleFormValues> = {
  amount_cents: "amount",
  amountCents: "amount",
  start_date: "startDate",
  startDate: "startDate",
  end_date: "endDate",
  endDate: "endDate",
  payment_method_id: "paymentMethodId",
  paymentMethodId: "paymentMethodId",
  frequency: "frequency",
};

function ScheduleForm({ recipient, onDone }: { recipient: Recipient; onDone: () => void }) {
  const [today] = useState(() => saToday());
  // The limits as configured, not today's room (GetLimits): a schedule is refused only on what
  // CreateSchedule refuses, the minimum and the per-transfer limit; each send is checked
  // against the day's room when it runs.
  const { data: policy } = useLimitPolicy();
  const schema = useMemo(() => scheduleSchema(today, policy), [today, policy]);
  const form = useForm<ScheduleFormValues>({
    resolver: zodResolver(schema),
    defaultValues: { amount: "", frequency: "weekly", startDate: today, endDate: "", paymentMethodId: "" },
  });
  const {
    register,
    setError,
    control,
    formState: { errors },
  } = form;
  const { cards, isPending: cardsLoading } = usePaymentCards();
  const create = useCreateSchedule();
  const transport = useTransport();
  const transfers = useMemo(() => createClient(TransfersService, transport), [transport]);
  const attempt = useRef<{ key: string; body?: string; refused: boolean }>({ key: crypto.randomUUID(), refused: false });
  const [checking, setChecking] = useState(false);
  const [stepUp, setStepUp] = useState<ScheduleBody>();
  // The first-payment question, when the server asks it (a recipient never paid to the end).
  const [asked, setAsked] = useState(false);
  const [known, setKnown] = useState(false);

  const [amountText, startDate, frequency] = useWatch({ control, name: ["amount", "startDate", "frequency"] });
  // What each send charges (the walk's F13): the server's quote, as the wizard's summary shows
  // it, once typing has stopped. The schedule keeps this fee for every send.
  const typedAmount = parseRandToCents(amountText ?? "");
  const quotedAmount = useDebouncedValue(typedAmount, 300);
  const fee = useFeeQuote(recipient.bank, quotedAmount);
  const quote = fee.isPlaceholderData ? undefined : fee.data?.quote;
  /** The quote shown for exactly this amount, if the sender has it in front of them. */
  const shownQuoteFor = (amountCents: bigint) =>
    quote && quotedAmount === amountCents && quote.amountCents === amountCents ? quote : undefined;

  // The default card is chosen when none is yet, otherwise the first.
  useEffect(() => {
    if (!cards?.length || form.getValues("paymentMethodId")) return;
    form.setValue("paymentMethodId", (cards.find((card) => card.isDefault) ?? cards[0]).id);
  }, [cards, form]);

  const submit = async (body: ScheduleBody, steppedUp: boolean) => {
    const current = attempt.current;
    try {
      const { schedule } = await create.mutateAsync({ idempotencyKey: current.key, ...body });
      const first = schedule?.nextDate || body.startDate;
      const agreed = shownQuoteFor(body.amountCents);
      const charged = agreed ? ` (${formatMoney(feeWithoutWaiver(agreed).totalCents)} charged each time)` : "";
      toast.success(SCHEDULE_MESSAGES.created, {
        description: `${formatMoney(body.amountCents)} to ${body.recipientName} ${FREQUENCY_WORDS[body.frequency]}${charged}, first on ${formatDay(first)}.`,
      });
      onDone();
    } catch (error) {
      if (isRecipientConfirmationRequired(error)) {
        current.refused = true;
        setAsked(true);
        setKnown(false);
        toast.error(`Do you know ${body.recipientName} personally?`, { description: SCHEDULE_MESSAGES.questionToast });
        return;
      }
      if (!steppedUp && isStepUpRequired(error)) {
        // Nothing was made: after "Confirm it's you" the same request goes again, same key.
        setStepUp(body);
        return;
      }
      current.refused = error instanceof ConnectError && REFUSAL_CODES.has(error.code);
      for (const v of fieldViolations(error)) {
        const field = FIELD_OF[v.field];
        if (field) setError(field, { message: v.description });
      }
      toast.error(SCHEDULE_MESSAGES.createFailed, { description: errorMessage(error, SCHEDULE_MESSAGES.createFailedFallback) });
    }
  };

  const onValid = async (values: ScheduleFormValues) => {
    if (asked && !known) return;
    const body: ScheduleBody = {
      recipientName: recipient.name,
      recipientPhone: recipient.phone,
      bank: recipient.bank,
      amountCents: parseRandToCents(values.amount) ?? 0n,
      paymentMethodId: values.paymentMethodId,
      frequency: FREQUENCY_OF[values.frequency],
      startDate: values.startDate,
      endDate: values.endDate,
      recipientKnownConfirmed: asked && known,
    };
    // Nothing is scheduled before the sender has seen what each send will charge.
    if (!shownQuoteFor(body.amountCents)) {
      toast.error(SCHEDULE_MESSAGES.feeNotShown, {
        description: fee.error ? errorMessage(fee.error, SCHEDULE_MESSAGES.feeFailed) : SCHEDULE_MESSAGES.feeNotShownHint,
      });
      return;
    }
    const fingerprint = JSON.stringify({ ...body, amountCents: body.amountCents.toString() });
    if (attempt.current.refused && attempt.current.body !== fingerprint) attempt.current = { key: crypto.randomUUID(), refused: false };
    attempt.current.body = fingerprint;
    // Above R1,000, or to a phone never paid, the server wants a fresh step-up: ask first.
    setChecking(true);
    const ask = await predictStepUp(transfers, body.amountCents, recipient.phone).finally(() => setChecking(false));
    if (ask) {
      setStepUp(body);
      return;
    }
    await submit(body, false);
  };

  const waiting = asked && !known;

  return (
    <>
      <form noValidate onSubmit={(event) => void form.handleSubmit(onValid)(event)} className="space-y-4" aria-label="Schedule a send">
        <div className="rounded-lg bg-slate-50 p-3 text-sm dark:bg-slate-800/60">
          <p className="font-medium">{recipient.name}</p>
          <p className="text-slate-600 dark:text-slate-400">
            {formatPhone(recipient.phone)} · {BANK_NAME[recipient.bank]}
          </p>
        </div>
        <div>
          <Label htmlFor="schedule-amount">Amount (ZAR)</Label>
          <Input
            id="schedule-amount"
            inputMode="decimal"
            autoComplete="off"
            placeholder="e.g. 500"
            aria-invalid={errors.amount ? true : undefined}
            aria-describedby={errors.amount ? "schedule-amount-error" : undefined}
            {...register("amount")}
          />
          <FieldError id="schedule-amount-error" message={errors.amount?.message} />
        </div>
        <fieldset>
          <legend className="mb-1.5 block text-sm font-medium text-slate-700 dark:text-slate-200">How often</legend>
          <div className="grid grid-cols-2 gap-2">
            {(["weekly", "monthly"] as const).map((value) => (
              <label
                key={value}
                className={cn(
                  "flex h-11 cursor-pointer items-center justify-center gap-2 rounded-lg border text-sm font-medium",
                  "has-focus-visible:outline-2 has-focus-visible:outline-brand-500",
                  frequency === value
                    ? "border-brand-600 bg-brand-50 text-brand-900 dark:border-brand-400 dark:bg-brand-950 dark:text-brand-100"
                    : "border-slate-300 dark:border-slate-700",
                )}
              >
                <input type="radio" value={value} className="accent-brand-700" {...register("frequency")} />
                {value === "weekly" ? "Weekly" : "Monthly"}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-2">
          <div>
            <Label htmlFor="schedule-start">First send</Label>
            <Input
              id="schedule-start"
              type="date"
              min={today}
              max={addDays(today, 366)}
              aria-invalid={errors.startDate ? true : undefined}
              aria-describedby={errors.startDate ? "schedule-start-error" : undefined}
              {...register("startDate")}
            />
            <FieldError id="schedule-start-error" message={errors.startDate?.message} />
          </div>
          <div>
            <Label htmlFor="schedule-end">End date (optional)</Label>
            <Input
              id="schedule-end"
              type="date"
              min={startDate || today}
              aria-invalid={errors.endDate ? true : undefined}
              aria-describedby={errors.endDate ? "schedule-end-hint schedule-end-error" : "schedule-end-hint"}
              {...register("endDate")}
            />
            <p id="schedule-end-hint" className="mt-1 text-xs text-slate-500 dark:text-slate-400">
              Leave empty to keep sending until you stop it.
            </p>
            <FieldError id="schedule-end-error" message={errors.endDate?.message} />
          </div>
        </div>
        <div>
          <Label htmlFor="schedule-card">Card</Label>
          <NativeSelect
            id="schedule-card"
            disabled={cardsLoading}
            aria-invalid={errors.paymentMethodId ? true : undefined}
            aria-describedby={errors.paymentMethodId ? "schedule-card-error" : undefined}
            {...register("paymentMethodId")}
          >
            <option value="">{cardsLoading ? "Loading your cards..." : cards?.length ? "Select a card" : "No saved cards"}</option>
            {cards?.map((card) => (
              <option key={card.id} value={card.id}>
                {card.name} (•••• {card.lastFour})
              </option>
            ))}
          </NativeSelect>
          <FieldError id="schedule-card-error" message={errors.paymentMethodId?.message} />
        </div>
        <ScheduleCharge
          amountCents={typedAmount === quotedAmount ? quotedAmount : undefined}
          loading={fee.isFetching || typedAmount !== quotedAmount}
          bank={recipient.bank}
          quote={quote}
          error={fee.error}
          every={FREQUENCY_WORDS[FREQUENCY_OF[frequency ?? "weekly"]]}
        />
        {asked && <RecipientQuestion idPrefix="schedule-recipient" name={recipient.name} checked={known} onCheckedChange={setKnown} />}
        <div className="flex flex-col-reverse gap-3 pt-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={onDone} disabled={create.isPending}>
            Cancel
          </Button>
          <Button type="submit" busy={checking || create.isPending} disabled={waiting}>
            Schedule send
          </Button>
        </div>
      </form>
      <StepUpDialog
        open={stepUp !== undefined}
        description="To keep your money safe, confirm it's you before we set up this scheduled send."
        confirmLabel="Confirm and schedule"
        onCancel={() => setStepUp(undefined)}
        onConfirmed={() => {
          const pending = stepUp;
          setStepUp(undefined);
          if (pending) void submit(pending, true);
        }}
      />
    </>
  );
}
