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
import { formatMoney, parseRandToCents } from "@/lib/money";
import type { SendMoneyValues, WithdrawalLocationInit } from "../../api/send-money";

export function StepHeading({ children }: { children: ReactNode }) {
  return <h2 className="text-lg font-semibold">{children}</h2>;
}

/** Back (except on the first step) and the step's primary action, which submits the form. */
export function StepActions({ onBack, next = "Next", busy = false }: { onBack?: () => void; next?: string; busy?: boolean }) {
  return (
    <div className="mt-6 flex justify-between gap-3">
      {onBack ? (
        <Button variant="outline" onClick={onBack}>
          Back
        </Button>
      ) : (
        <span />
      )}
      <Button type="submit" busy={busy}>
        {next}
      </Button>
    </div>
  );
}

export function AmountStep() {
  const {
    register,
    formState: { errors },
  } = useFormContext<SendMoneyValues>();
  return (
    <div>
      <StepHeading>How much are you sending?</StepHeading>
      <div className="mt-4">
        <Label htmlFor="send-amount">Amount to Send (ZAR)</Label>
        <div className="relative">
          <span aria-hidden="true" className="pointer-events-none absolute inset-y-0 left-3 flex items-center text-slate-500">
            R
          </span>
          <Input
            id="send-amount"
            type="number"
            inputMode="decimal"
            min={0}
            step="0.01"
            placeholder="0.00"
            className="pl-8"
            aria-invalid={errors.amount ? true : undefined}
            aria-describedby={errors.amount ? "send-amount-error" : undefined}
            {...register("amount")}
          />
        </div>
        <FieldError id="send-amount-error" message={errors.amount?.message} />
      </div>
    </div>
  );
}

export function RecipientStep({ banks, banksLoading }: { banks: BankOption[]; banksLoading: boolean }) {
  const {
    register,
    formState: { errors },
  } = useFormContext<SendMoneyValues>();
  return (
    <div>
      <StepHeading>Who are you sending to?</StepHeading>
      <div className="mt-4 space-y-4">
        <div>
          <Label htmlFor="recipient-name">Recipient Name</Label>
          <Input
            id="recipient-name"
            autoComplete="off"
            aria-invalid={errors.recipientName ? true : undefined}
            aria-describedby={errors.recipientName ? "recipient-error" : undefined}
            {...register("recipientName")}
          />
        </div>
        <div>
          <Label htmlFor="recipient-phone">Recipient Phone Number</Label>
          <Input
            id="recipient-phone"
            type="tel"
            autoComplete="off"
            placeholder="e.g. 082 123 4567"
            aria-invalid={errors.recipientPhone ? true : undefined}
            aria-describedby={errors.recipientPhone ? "recipient-phone-hint recipient-error" : "recipient-phone-hint"}
            {...register("recipientPhone")}
          />
          <p id="recipient-phone-hint" className="mt-1.5 text-xs text-slate-500 dark:text-slate-400">
            The voucher number and PIN are sent to this number by SMS.
          </p>
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
            The recipient withdraws the cash at this bank's ATMs.
          </p>
        </div>
        <FieldError
          id="recipient-error"
          message={errors.recipientName?.message ?? errors.recipientPhone?.message ?? errors.bank?.message}
        />
      </div>
    </div>
  );
}

interface PaymentStepProps {
  cards: PaymentMethod[] | undefined;
  loading: boolean;
  /** Opens the add-card dialog; undefined when adding a card is not available here. */
  onAddCard?: () => void;
}

export function PaymentStep({ cards, loading, onAddCard }: PaymentStepProps) {
  const {
    register,
    formState: { errors },
  } = useFormContext<SendMoneyValues>();

  if (loading && !cards) return <LoadingBlock label="Loading your payment methods..." />;

  if (!cards || cards.length === 0) {
    return (
      <div className="flex flex-col items-center py-6 text-center">
        <span className="flex size-12 items-center justify-center rounded-full bg-slate-100 dark:bg-slate-800">
          <CreditCard aria-hidden="true" className="size-6 text-slate-500" />
        </span>
        <h2 className="mt-3 text-lg font-semibold">No Payment Methods</h2>
        <p className="mt-1 max-w-sm text-sm text-slate-600 dark:text-slate-400">
          Add a card to pay for this transfer. It is saved for next time.
        </p>
        {onAddCard && (
          <Button className="mt-4" onClick={onAddCard}>
            <Plus aria-hidden="true" className="size-4" />
            Add Payment Method
          </Button>
        )}
        <FieldError id="payment-method-error" message={errors.paymentMethodId?.message} />
      </div>
    );
  }

  return (
    <fieldset>
      <legend className="text-lg font-semibold">Select Payment Method</legend>
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
              aria-invalid={errors.paymentMethodId ? true : undefined}
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
      <StepHeading>Confirm your transfer</StepHeading>
      <div className="mt-4 grid gap-4 sm:grid-cols-2">
        <DetailsBox title="Transfer details">
          <Detail term="Amount">{amountCents !== undefined ? formatMoney(amountCents) : "—"}</Detail>
          <Detail term="Payment method">{cardName}</Detail>
          <Detail term="Withdrawal location">{location.name}</Detail>
        </DetailsBox>
        <DetailsBox title="Recipient">
          <Detail term="Name">{values.recipientName}</Detail>
          <Detail term="Phone">{values.recipientPhone}</Detail>
          <Detail term="Bank">{bank?.displayName ?? "—"}</Detail>
        </DetailsBox>
      </div>
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
