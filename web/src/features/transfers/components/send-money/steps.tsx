import { CreditCard, Plus } from "lucide-react";
import { useFormContext, useWatch } from "react-hook-form";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Badge } from "@/components/ui/badge";
import { FieldError } from "@/components/ui/field-error";
import { Input, Label } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { LoadingBlock } from "@/components/ui/spinner";
import type { BankOption, PaymentMethod } from "@/gen/thumela/bff/v1/bff_pb";
import { errorMessage } from "@/lib/errors";
import { formatMoney, parseRandToCents } from "@/lib/money";
import { formatPhone, saMobileE164 } from "@/lib/phone";
import { AMOUNT_MESSAGES, MESSAGES } from "../../api/send-money";
import type { SendMoneyValues, WithdrawalLocationInit } from "../../api/send-money";
import { SaveRecipientOption, SavedRecipientPicker } from "./saved-recipients";
import { LimitsMeter } from "../limits-meter";
import { useFeeQuote } from "../../api/transfers";
import { FEES_UNKNOWN, FeeLines, SummaryLine, useCreditEstimate } from "./transaction-summary";

export function StepHeading({ id, focusTarget = false, children }: { id?: string; focusTarget?: boolean; children: ReactNode }) {
  // A step that is read before it is acted on (the confirmation) takes the focus on its heading:
  // a screen reader starts at the top of what is to be confirmed and Tab goes on to its controls.
  return (
    <h2
      id={id}
      tabIndex={focusTarget ? -1 : undefined}
      data-step-focus={focusTarget ? "" : undefined}
      className="text-lg font-semibold focus:outline-none"
    >
      {children}
    </h2>
  );
}

/** Back (except on the first step) and the step's primary action, which submits the form. */
export function StepActions({
  onBack,
  next = "Next",
  busy = false,
  disabled = false,
}: {
  onBack?: () => void;
  next?: string;
  busy?: boolean;
  /** Not yet (the review step's question is unanswered). */
  disabled?: boolean;
}) {
  return (
    <div className="mt-6 flex justify-between gap-3">
      {onBack ? (
        <Button variant="outline" onClick={onBack}>
          Back
        </Button>
      ) : (
        <span />
      )}
      <Button type="submit" busy={busy} disabled={disabled}>
        {next}
      </Button>
    </div>
  );
}

/** The typed amount in cents for the meter's warning; undefined while it is not an amount. */
function typedAmount(text: string | undefined): bigint | undefined {
  const cents = text === undefined ? undefined : parseRandToCents(text);
  return cents !== undefined && cents > 0n ? cents : undefined;
}

export function AmountStep() {
  const {
    register,
    control,
    formState: { errors },
  } = useFormContext<SendMoneyValues>();
  const error = errors.amount?.message;
  // The rule is the hint; when it is also the error, it is said once, as the error.
  const hint = error === AMOUNT_MESSAGES.notes ? undefined : AMOUNT_MESSAGES.notes;
  const describedBy = [hint && "send-amount-hint", error && "send-amount-error"].filter(Boolean).join(" ");
  const amountText = useWatch({ control, name: "amount" });
  return (
    <div>
      <StepHeading>How much are you sending?</StepHeading>
      <div className="mt-4">
        <Label htmlFor="send-amount">Amount to Send (ZAR)</Label>
        <div className="relative">
          <span aria-hidden="true" className="pointer-events-none absolute inset-y-0 left-3 flex items-center text-slate-500">
            R
          </span>
          {/* Text, not type="number": a number input drops the space and the comma as they
              are typed, so "1 500" stayed R1 500 but "20,00" became R2 000. parseRandToCents
              reads the ways South Africans write rand; the keyboard is still the decimal one. */}
          <Input
            id="send-amount"
            inputMode="decimal"
            autoComplete="off"
            placeholder="e.g. 500"
            className="pl-8"
            aria-invalid={errors.amount ? true : undefined}
            aria-describedby={describedBy}
            {...register("amount")}
          />
        </div>
        {hint && (
          <p id="send-amount-hint" className="mt-1.5 text-xs text-slate-500 dark:text-slate-400">
            {hint}
          </p>
        )}
        <FieldError id="send-amount-error" message={error} />
        {/* While the field shows why the amount cannot go (a limit among them), the meter does
            not say it again. */}
        <LimitsMeter className="mt-4" amountCents={error ? undefined : typedAmount(amountText)} />
      </div>
    </div>
  );
}

export function RecipientStep({ banks, banksLoading }: { banks: BankOption[]; banksLoading: boolean }) {
  const {
    register,
    control,
    formState: { errors },
  } = useFormContext<SendMoneyValues>();
  const [nameValue, bankValue, ownPin] = useWatch({ control, name: ["recipientName", "bank", "ownPin"] });
  const name = nameValue?.trim() ?? "";
  const bank = banks.find((option) => String(option.bank) === bankValue)?.displayName;
  // A missing detail is said once for the three fields (the spec's words); a name the name rule
  // refuses is said under the name, a number that is not a South African mobile under the number.
  const missing = MESSAGES.missingRecipient.description;
  const nameProblem = errors.recipientName?.message !== missing ? errors.recipientName?.message : undefined;
  const phoneProblem = errors.recipientPhone?.message !== missing ? errors.recipientPhone?.message : undefined;
  const missingError = [errors.recipientName, errors.recipientPhone, errors.bank].find((error) => error?.message === missing);
  return (
    <div>
      <StepHeading>Who are you sending to?</StepHeading>
      <SavedRecipientPicker />
      <div className="mt-4 space-y-4">
        <div>
          <Label htmlFor="recipient-name">Recipient Name</Label>
          <Input
            id="recipient-name"
            // The step's first field, after the saved recipients (the wizard focuses it).
            data-step-focus
            autoComplete="off"
            aria-invalid={errors.recipientName ? true : undefined}
            aria-describedby={
              nameProblem ? "recipient-name-error" : errors.recipientName ? "recipient-error" : undefined
            }
            {...register("recipientName")}
          />
          <FieldError id="recipient-name-error" message={nameProblem} />
        </div>
        <div>
          <Label htmlFor="recipient-phone">Recipient Phone Number</Label>
          <Input
            id="recipient-phone"
            type="tel"
            autoComplete="off"
            placeholder="e.g. 082 123 4567"
            aria-invalid={errors.recipientPhone ? true : undefined}
            aria-describedby={
              phoneProblem
                ? "recipient-phone-hint recipient-phone-error"
                : errors.recipientPhone
                  ? "recipient-phone-hint recipient-error"
                  : "recipient-phone-hint"
            }
            {...register("recipientPhone")}
          />
          <p id="recipient-phone-hint" className="mt-1.5 text-xs text-slate-500 dark:text-slate-400">
            {ownPin
              ? "The voucher number is sent to this number by SMS."
              : "The voucher number and PIN are sent to this number by SMS."}
          </p>
          <FieldError id="recipient-phone-error" message={phoneProblem} />
        </div>
        <div>
          <Label htmlFor="recipient-bank">Bank</Label>
          <NativeSelect
            id="recipient-bank"
            aria-invalid={errors.bank ? true : undefined}
            aria-describedby={errors.bank ? "recipient-bank-hint recipient-error" : "recipient-bank-hint"}
            disabled={banksLoading && banks.length === 0}
            {...register("bank")}
          >
            <option value="">{banksLoading ? "Loading banks..." : "Select a bank"}</option>
            {banks.map((option) => (
              <option key={option.bank} value={String(option.bank)}>
                {option.displayName}
              </option>
            ))}
          </NativeSelect>
          <p id="recipient-bank-hint" className="mt-1.5 text-xs text-slate-500 dark:text-slate-400">
            {collectsAt(name, bank)}
          </p>
        </div>
        <FieldError id="recipient-error" message={missingError?.message} />
        <SenderPinOption name={name} />
        <SaveRecipientOption name={name} />
      </div>
    </div>
  );
}

/**
 * Where the cash is collected: each bank pays out only its own vouchers, so the recipient
 * withdraws at an ATM of the bank chosen here, e.g. 'Thandi collects the cash at any FNB ATM'.
 */
export function collectsAt(name: string, bank: string | undefined): string {
  const who = name || "The recipient";
  return bank ? `${who} collects the cash at any ${bank} ATM.` : `${who} collects the cash at an ATM of the bank you choose.`;
}

/**
 * The option of a PIN only the sender knows: the SMS then carries the voucher number alone, so
 * whoever holds the recipient's phone (a thief, a SIM swap) cannot withdraw the cash.
 */
function SenderPinOption({ name }: { name: string }) {
  const {
    register,
    control,
    setValue,
    clearErrors,
    formState: { errors },
  } = useFormContext<SendMoneyValues>();
  const ownPin = useWatch({ control, name: "ownPin" });
  const who = name || "the recipient";
  const error = errors.senderPin?.message;
  return (
    <div className="rounded-lg border border-slate-200 p-4 dark:border-slate-700">
      <div className="flex items-start gap-3">
        <input
          id="own-pin"
          type="checkbox"
          className="mt-0.5 size-4 shrink-0 accent-brand-700"
          aria-describedby="own-pin-hint"
          {...register("ownPin", {
            // Turned off, the PIN is forgotten at once: it is never sent, and not kept either.
            onChange: (event: { target: { checked: boolean } }) => {
              if (!event.target.checked) {
                setValue("senderPin", "");
                clearErrors("senderPin");
              }
            },
          })}
        />
        <div>
          <label htmlFor="own-pin" className="text-sm font-medium text-slate-800 dark:text-slate-100">
            I'll give {who} the PIN myself
          </label>
          <p id="own-pin-hint" className="mt-1 text-xs text-slate-500 dark:text-slate-400">
            {name
              ? `Only you and ${name} will know the PIN, so someone who steals ${name}'s phone or SIM cannot withdraw the cash.`
              : "Only you and the recipient will know the PIN, so someone who steals their phone or SIM cannot withdraw the cash."}
          </p>
        </div>
      </div>
      {ownPin && (
        <div className="mt-4 sm:max-w-xs">
          <Label htmlFor="sender-pin">Choose a 4-digit PIN</Label>
          <Input
            id="sender-pin"
            type="password"
            inputMode="numeric"
            autoComplete="off"
            maxLength={4}
            pattern="[0-9]{4}"
            className="font-mono tracking-[0.5em]"
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "sender-pin-hint sender-pin-error" : "sender-pin-hint"}
            {...register("senderPin")}
          />
          <p id="sender-pin-hint" className="mt-1.5 text-xs text-slate-500 dark:text-slate-400">
            Tell {who} the PIN yourself. Not 4 equal digits, and not a run such as 1234 or 4321.
          </p>
          <FieldError id="sender-pin-error" message={error} />
        </div>
      )}
    </div>
  );
}

interface PaymentStepProps {
  cards: PaymentMethod[] | undefined;
  loading: boolean;
  /** The cards could not be read (the list is then unknown, not empty); retry reads them again. */
  failed?: { retry: () => void; retrying: boolean };
  /** Opens the add-card dialog; undefined when adding a card is not available here. */
  onAddCard?: () => void;
}

export function PaymentStep({ cards, loading, failed, onAddCard }: PaymentStepProps) {
  const {
    register,
    formState: { errors },
  } = useFormContext<SendMoneyValues>();

  // The step's title stays above every state (spec section 2), the empty one included.
  if (loading && !cards) {
    return (
      <div>
        <StepHeading>Select Payment Method</StepHeading>
        <LoadingBlock label="Loading your payment methods..." />
      </div>
    );
  }

  // Unread is not empty: "No Payment Methods" would tell a sender with cards to add one again.
  if (failed && !cards) {
    return (
      <div>
        <StepHeading>Select Payment Method</StepHeading>
        <div className="flex flex-col items-center gap-3 py-6 text-center">
          <p className="font-medium">We couldn't load your payment methods.</p>
          <Button variant="outline" busy={failed.retrying} onClick={failed.retry}>
            Try again
          </Button>
        </div>
      </div>
    );
  }

  if (!cards || cards.length === 0) {
    return (
      <div>
        <StepHeading>Select Payment Method</StepHeading>
        <EmptyPaymentMethods onAddCard={onAddCard} error={errors.paymentMethodId?.message} />
      </div>
    );
  }

  return (
    // The same heading as the other states, naming the group of cards.
    <fieldset aria-labelledby="payment-step-title" aria-describedby={errors.paymentMethodId ? "payment-method-error" : undefined}>
      <StepHeading id="payment-step-title">Select Payment Method</StepHeading>
      <div className="mt-4 space-y-2">
        {cards.map((card) => (
          <label
            key={card.id}
            className="flex cursor-pointer items-center gap-3 rounded-lg border border-slate-200 p-3 has-checked:border-brand-600 has-checked:bg-brand-50 dark:border-slate-700 dark:has-checked:bg-brand-950"
          >
            <input
              type="radio"
              value={card.id}
              className="size-4 accent-brand-700"
              {...register("paymentMethodId")}
            />
            <CreditCard aria-hidden="true" className="size-5 text-slate-500" />
            <span className="flex-1 text-sm font-medium">
              {card.name} (•••• {card.lastFour})
            </span>
            {card.isDefault && <Badge tone="neutral">Default</Badge>}
          </label>
        ))}
        {onAddCard && (
          <button
            type="button"
            onClick={onAddCard}
            className="flex w-full items-center gap-3 rounded-lg border border-dashed border-slate-300 p-3 text-left text-sm font-medium text-brand-700 hover:bg-slate-50 dark:border-slate-700 dark:text-brand-300 dark:hover:bg-slate-800/60"
          >
            <Plus aria-hidden="true" className="size-5" />
            Add New Card
          </button>
        )}
      </div>
      <FieldError id="payment-method-error" message={errors.paymentMethodId?.message} />
    </fieldset>
  );
}

function EmptyPaymentMethods({ onAddCard, error }: { onAddCard?: () => void; error?: string }) {
  return (
    <div className="flex flex-col items-center py-6 text-center">
      <span className="flex size-12 items-center justify-center rounded-full bg-slate-100 dark:bg-slate-800">
        <CreditCard aria-hidden="true" className="size-6 text-slate-500" />
      </span>
      <h3 className="mt-3 text-base font-semibold">No Payment Methods</h3>
      <p className="mt-1 max-w-sm text-sm text-slate-600 dark:text-slate-400">
        Add a card to pay for this transfer. It is saved for next time.
      </p>
      {onAddCard && (
        <Button className="mt-4" onClick={onAddCard}>
          <Plus aria-hidden="true" className="size-4" />
          Add Payment Method
        </Button>
      )}
      <FieldError id="payment-method-error" message={error} />
    </div>
  );
}

interface ConfirmStepProps {
  location: WithdrawalLocationInit;
  banks: BankOption[];
  cards: PaymentMethod[] | undefined;
}

export function ConfirmStep({ location, banks, cards }: ConfirmStepProps) {
  const { control } = useFormContext<SendMoneyValues>();
  const values = useWatch({ control });
  const amountCents = parseRandToCents(values.amount ?? "");
  const bank = banks.find((option) => String(option.bank) === values.bank);
  const card = cards?.find((method) => method.id === values.paymentMethodId);
  const cardName = card ? card.name : cards ? "Unknown payment method" : "Loading...";
  return (
    <div>
      <StepHeading focusTarget>Confirm your transfer</StepHeading>
      <div className="mt-4 grid gap-4 sm:grid-cols-2">
        <DetailsBox title="Transfer details">
          <Detail term="Amount">{amountCents !== undefined ? formatMoney(amountCents) : "—"}</Detail>
          <Detail term="Payment method">{cardName}</Detail>
          <Detail term="Withdrawal location">{location.name}</Detail>
          {/* Never the digits: only that the PIN is the sender's to give. */}
          <Detail term="PIN">
            {values.ownPin ? `Chosen by you: tell ${values.recipientName?.trim() || "the recipient"} yourself` : "Sent by SMS with the voucher"}
          </Detail>
        </DetailsBox>
        <DetailsBox title="Recipient">
          <Detail term="Name">{values.recipientName}</Detail>
          {/* Grouped as everywhere else (+27 82 555 1234), however it was typed or prefilled. */}
          <Detail term="Phone">{formatPhone(saMobileE164(values.recipientPhone ?? "") ?? values.recipientPhone ?? "")}</Detail>
          <Detail term="Bank">{bank?.displayName ?? "—"}</Detail>
          {bank && <Detail term="Collects at">Any {bank.displayName} ATM</Detail>}
        </DetailsBox>
      </div>
      <PaymentDetails amountCents={amountCents} bank={bank?.bank} />
    </div>
  );
}

/**
 * What the card will be charged, above 'Send Money' for every sender: the fee quote's lines (the
 * Transaction Summary's, which stacks below the wizard under 1024 px) and the total. With
 * transfer credit, how the total would be paid: the credit pays the fee (min(balance, fee)) and
 * the card the rest, the amount always. An estimate from the fee quote and GetCredit's balance;
 * the server decides when the transfer is made, and the result shows what it did. A transfer
 * without a fee (the first) spends no credit, and says why the credit is kept.
 */
function PaymentDetails({ amountCents, bank }: { amountCents: bigint | undefined; bank: BankOption["bank"] | undefined }) {
  const fees = useFeeQuote(bank, amountCents);
  // Never the quote of an earlier amount or bank (the query keeps it while the new one loads).
  const quote = fees.isPlaceholderData ? undefined : fees.data?.quote;
  const credit = useCreditEstimate(quote);
  const { balanceCents: balance, creditCents } = credit;
  return (
    <div className="mt-4">
      <DetailsBox title="Payment">
        {quote ? (
          <FeeLines quote={quote} credit={credit} />
        ) : (
          // Not a figure: the box says why there is none yet (dd alone is not allowed in a dl).
          <SummaryLine term="Total amount">{fees.error ? "—" : "Loading..."}</SummaryLine>
        )}
      </DetailsBox>
      {!quote && fees.error && (
        <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">{errorMessage(fees.error, FEES_UNKNOWN)}</p>
      )}
      {quote && balance > 0n && (
        <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
          {creditCents > 0n
            ? `Your transfer credit (${formatMoney(balance)}) pays the fee; the card is charged the amount and any rest.`
            : `This transfer has no fee, so your transfer credit (${formatMoney(balance)}) is kept for the fees of your next transfers.`}
        </p>
      )}
    </div>
  );
}

function DetailsBox({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-label={title} className="rounded-lg border border-slate-200 p-4 dark:border-slate-700">
      <h3 className="text-sm font-semibold text-slate-700 dark:text-slate-200">{title}</h3>
      <dl className="mt-3 space-y-2 text-sm">{children}</dl>
    </section>
  );
}

function Detail({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex justify-between gap-4">
      <dt className="text-slate-500 dark:text-slate-400">{term}</dt>
      <dd className="text-right font-medium">{children}</dd>
    </div>
  );
}
