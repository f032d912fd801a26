import { Code } from "@connectrpc/connect";
import { zodResolver } from "@hookform/resolvers/zod";
import { CreditCard, Landmark, Lock } from "lucide-react";
import { useState } from "react";
import type { ComponentProps, ReactNode } from "react";
import { Controller, useForm } from "react-hook-form";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent } from "@/components/ui/dialog";
import { FieldError } from "@/components/ui/field-error";
import { Input, Label } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Switch } from "@/components/ui/switch";
import type { PaymentMethod } from "@/gen/thumela/bff/v1/bff_pb";
import { cn } from "@/lib/cn";
import { errorMessage, fieldViolations, hasCode } from "@/lib/errors";
import { markViolations } from "@/lib/form-violations";
import { failureToast } from "@/lib/failure-toast";
import {
  CARD_NUMBER_MAX_LENGTH,
  CVV_DIGITS,
  EXPIRY_MONTHS,
  MISSING_FIELDS_MESSAGE,
  MISSING_FIELDS_TITLE,
  SAVE_FAILURE_FALLBACK,
  TOKENIZE_FAILURE_FALLBACK,
  VIOLATION_FIELDS,
  cardSchema,
  expiryYears,
  formatCardNumber,
  fullYear,
  maskedCardNumber,
  sanitizeCvv,
  useAddCard,
  useUpdatePaymentMethod,
} from "../api/payment-methods";
import type { CardFormMode, CardFormValues } from "../api/payment-methods";

/**
 * The 'Missing fields' toast under one id: pressing the submit button again replaces it rather
 * than stacking a copy per press, and a form that goes on dismisses it.
 */
const missingFieldsToast = failureToast("card-form-missing-fields");

/**
 * A field that editing shows but cannot change (the card number, the expiry): filled with a muted
 * grey in both themes, on top of the fields' own dimming when disabled, so it reads as read-only
 * beside the white, editable Card Name; a lock inside it and a hint under it say why.
 */
const LOCKED_FIELD = "disabled:bg-slate-100 dark:disabled:bg-slate-800";

function LockIcon() {
  return <Lock aria-hidden="true" className="pointer-events-none absolute right-3 top-1/2 size-4 -translate-y-1/2 text-slate-400" />;
}

interface ExpirySelectProps {
  label: string;
  placeholder: string;
  options: readonly { value: string; label: string }[];
  /** Editing: shown as the card number is, muted, its dropdown's arrow (nothing to choose) a lock. */
  locked: boolean;
  invalid: true | undefined;
  describedBy: string | undefined;
  /** The form's registration, or the locked value. */
  field: ComponentProps<typeof NativeSelect>;
}

/** The expiry's month or year. */
function ExpirySelect({ label, placeholder, options, locked, invalid, describedBy, field }: ExpirySelectProps) {
  return (
    <div className="relative flex-1">
      <NativeSelect
        aria-label={label}
        disabled={locked}
        aria-invalid={invalid}
        aria-describedby={describedBy}
        className={locked ? cn(LOCKED_FIELD, "disabled:appearance-none") : undefined}
        {...field}
      >
        <option value="" disabled>
          {placeholder}
        </option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </NativeSelect>
      {locked && <LockIcon />}
    </div>
  );
}

interface PaymentMethodDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The method to edit; without it the dialog adds a card. */
  method?: PaymentMethod;
  /**
   * Called with the new card after a successful add. A caller that passes it confirms the add
   * in its own words (the wizard's 'Card added successfully'), so the dialog's own
   * 'Payment method added' toast is not shown: one action, one toast.
   */
  onAdded?: (paymentMethod: PaymentMethod) => void;
  /** Where focus returns on close; default: what had focus when it opened. */
  returnFocus?: HTMLElement | null;
}

/** The Add/Edit payment method dialog. Its form is mounted afresh each time it opens. */
export function PaymentMethodDialog({ open, onOpenChange, method, onAdded, returnFocus }: PaymentMethodDialogProps) {
  // While the card is being saved the dialog stays open (Escape, the close button and a click
  // outside do nothing), as the delete dialog does while deleting: closing it would not stop the
  // save, and the sender would believe they had cancelled it.
  const [saving, setSaving] = useState(false);
  return (
    <Dialog open={open} onOpenChange={(next) => (next || !saving) && onOpenChange(next)}>
      {open && (
        <DialogContent title={method ? "Edit Payment Method" : "Add Payment Method"} returnFocus={returnFocus}>
          <CardForm method={method} onSaving={setSaving} onDone={() => onOpenChange(false)} onAdded={onAdded} />
        </DialogContent>
      )}
    </Dialog>
  );
}

function initialValues(method?: PaymentMethod): CardFormValues {
  if (!method) return { name: "", cardNumber: "", expiryMonth: "", expiryYear: "", cvv: "", isDefault: false };
  return {
    name: method.name,
    cardNumber: maskedCardNumber(method.lastFour),
    expiryMonth: method.expiryMonth ? String(method.expiryMonth).padStart(2, "0") : "",
    expiryYear: method.expiryYear ? String(fullYear(method.expiryYear)) : "",
    cvv: "",
    isDefault: method.isDefault,
  };
}

interface CardFormProps {
  method?: PaymentMethod;
  /** Told when a save starts and ends: the dialog keeps itself open in between. */
  onSaving: (saving: boolean) => void;
  onDone: () => void;
  onAdded?: (paymentMethod: PaymentMethod) => void;
}

function CardForm({ method, onSaving, onDone, onAdded }: CardFormProps) {
  const mode: CardFormMode = method ? "edit" : "add";
  const editing = mode === "edit";
  const addCard = useAddCard();
  const update = useUpdatePaymentMethod();
  const busy = addCard.isPending || update.isPending;
  const {
    control,
    register,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<CardFormValues>({ resolver: zodResolver(cardSchema(mode)), defaultValues: initialValues(method) });

  const years = expiryYears();
  const existingYear = editing ? initialValues(method).expiryYear : "";
  // An older card's year may lie before this year: keep it selectable so it still shows.
  if (existingYear && !years.some((year) => year.value === existingYear)) {
    years.unshift({ value: existingYear, label: existingYear.slice(-2) });
  }

  // The server's own checks, under the fields they name, as the form's own checks show them.
  const showViolations = (error: unknown) =>
    markViolations(hasCode(error, Code.InvalidArgument) ? fieldViolations(error) : [], VIOLATION_FIELDS, setError, { focus: false });

  const onValid = async (values: CardFormValues) => {
    onSaving(true);
    try {
      await save(values);
    } finally {
      onSaving(false);
    }
  };

  const save = async (values: CardFormValues) => {
    missingFieldsToast.dismiss();
    if (method) {
      try {
        await update.mutateAsync({ id: method.id, name: values.name.trim(), isDefault: values.isDefault });
        toast.success("Payment method saved", { description: "Your payment method has been successfully saved." });
        onDone();
      } catch (error) {
        showViolations(error);
        toast.error("Error", { description: errorMessage(error, SAVE_FAILURE_FALLBACK) });
      }
      return;
    }
    try {
      const response = await addCard.mutateAsync({
        name: values.name.trim(),
        cardNumber: values.cardNumber.replace(/\s/g, ""),
        expiryMonth: Number(values.expiryMonth),
        expiryYear: Number(values.expiryYear),
        cvv: values.cvv,
        isDefault: values.isDefault,
      });
      if (!onAdded) toast.success("Payment method added");
      onDone();
      if (response.paymentMethod) onAdded?.(response.paymentMethod);
    } catch (error) {
      showViolations(error);
      if (hasCode(error, Code.FailedPrecondition) || hasCode(error, Code.InvalidArgument)) {
        toast.error("Failed to tokenize card", { description: errorMessage(error, TOKENIZE_FAILURE_FALLBACK) });
      } else {
        toast.error("Error", { description: errorMessage(error, SAVE_FAILURE_FALLBACK) });
      }
    }
  };

  // Editing shows the expiry locked; locked fields are not part of the form.
  const initial = initialValues(method);
  // Month and year are judged together (an expired card): a change to one checks the other again.
  const lockedOr = (name: "expiryMonth" | "expiryYear") =>
    editing
      ? { value: initial[name], onChange: () => {} }
      : register(name, { deps: name === "expiryMonth" ? ["expiryYear"] : ["expiryMonth"] });

  // Empty fields are said once, by the spec's 'Missing fields' toast; a field that is filled in
  // but wrong (a typo in the number, an expired card) says what is wrong under itself, and the
  // focus goes to the first such field.
  const onInvalid = (found: typeof errors) => {
    if (Object.values(found).some((error) => error?.message === MISSING_FIELDS_MESSAGE)) {
      missingFieldsToast.show(MISSING_FIELDS_TITLE, { description: MISSING_FIELDS_MESSAGE });
    }
  };
  const invalid = (name: keyof CardFormValues) => (errors[name] ? true : undefined);
  const problem = (name: keyof CardFormValues) => {
    const message = errors[name]?.message;
    return message && message !== MISSING_FIELDS_MESSAGE ? message : undefined;
  };
  const expiryError = problem("expiryMonth") ?? problem("expiryYear");
  const describedBy = (id: string, message: string | undefined) => (message ? id : undefined);
  // Editing: the expiry's hint says why it is locked; adding: its error, when there is one.
  const expiryDescribedBy = editing ? "card-expiry-locked" : describedBy("card-expiry-error", expiryError);

  return (
    <form noValidate onSubmit={handleSubmit(onValid, onInvalid)} className="space-y-5">
      <fieldset>
        <legend className="mb-1.5 text-sm font-medium text-slate-700 dark:text-slate-200">Payment method type</legend>
        <div className="grid grid-cols-2 gap-3">
          <TypeOption label="Card" icon={<CreditCard aria-hidden="true" className="size-5" />} checked />
          <TypeOption
            label="Bank Account"
            icon={<Landmark aria-hidden="true" className="size-5" />}
            disabled
            badge={<Badge tone="amber">Coming Soon</Badge>}
          />
        </div>
      </fieldset>

      <div>
        <Label htmlFor="card-name">Card Name</Label>
        <Input
          id="card-name"
          placeholder="e.g. Personal Visa"
          aria-invalid={invalid("name")}
          aria-describedby={describedBy("card-name-error", problem("name"))}
          {...register("name")}
        />
        <FieldError id="card-name-error" message={problem("name")} />
      </div>

      <div>
        <Label htmlFor="card-number">Card Number</Label>
        {editing ? (
          <div>
            <div className="relative">
              <Input
                id="card-number"
                value={maskedCardNumber(method?.lastFour ?? "")}
                disabled
                readOnly
                aria-describedby="card-number-locked"
                className={cn(LOCKED_FIELD, "pr-9")}
              />
              <LockIcon />
            </div>
            <p id="card-number-locked" className="mt-1.5 text-xs text-slate-500 dark:text-slate-400">
              The card number can't be changed. Add a new card instead.
            </p>
          </div>
        ) : (
          <Controller
            control={control}
            name="cardNumber"
            render={({ field }) => (
              <Input
                id="card-number"
                inputMode="numeric"
                autoComplete="cc-number"
                placeholder="1234 5678 9012 3456"
                maxLength={CARD_NUMBER_MAX_LENGTH}
                aria-invalid={invalid("cardNumber")}
                aria-describedby={describedBy("card-number-error", problem("cardNumber"))}
                name={field.name}
                ref={field.ref}
                value={field.value}
                onBlur={field.onBlur}
                onChange={(event) => field.onChange(formatCardNumber(event.target.value))}
              />
            )}
          />
        )}
        <FieldError id="card-number-error" message={problem("cardNumber")} />
      </div>

      {/* Below 640 px the CVV goes under the expiry: side by side, each select would be too
          narrow to show the month or year chosen. */}
      <div className={cn("grid gap-4", editing ? "grid-cols-1" : "grid-cols-1 sm:grid-cols-2")}>
        <fieldset>
          <legend className="mb-1.5 text-sm font-medium text-slate-700 dark:text-slate-200">Expiry Date</legend>
          {/* Locked (editing), each select reads as the card number does: muted, without the
              dropdown's arrow (nothing to choose), a lock in its place and the hint below. */}
          <div className="flex gap-2">
            <ExpirySelect
              label="Expiry month"
              placeholder="MM"
              options={EXPIRY_MONTHS.map((month) => ({ value: month, label: month }))}
              locked={editing}
              invalid={invalid("expiryMonth") ?? (expiryError ? true : undefined)}
              describedBy={expiryDescribedBy}
              field={lockedOr("expiryMonth")}
            />
            <ExpirySelect
              label="Expiry year"
              placeholder="YY"
              options={years}
              locked={editing}
              invalid={invalid("expiryYear") ?? (expiryError ? true : undefined)}
              describedBy={expiryDescribedBy}
              field={lockedOr("expiryYear")}
            />
          </div>
          {editing && (
            <p id="card-expiry-locked" className="mt-1.5 text-xs text-slate-500 dark:text-slate-400">
              The expiry date can't be changed. Add a new card instead.
            </p>
          )}
          {/* An expired card is the month and the year together: one message for both. */}
          <FieldError id="card-expiry-error" message={expiryError} />
        </fieldset>
        {!editing && (
          <div>
            <Label htmlFor="card-cvv">CVV</Label>
            <Controller
              control={control}
              name="cvv"
              render={({ field }) => (
                <Input
                  id="card-cvv"
                  type="password"
                  inputMode="numeric"
                  autoComplete="cc-csc"
                  placeholder="123"
                  maxLength={CVV_DIGITS}
                  aria-invalid={invalid("cvv")}
                  aria-describedby={describedBy("card-cvv-error", problem("cvv"))}
                  name={field.name}
                  ref={field.ref}
                  value={field.value}
                  onBlur={field.onBlur}
                  onChange={(event) => field.onChange(sanitizeCvv(event.target.value))}
                />
              )}
            />
            <FieldError id="card-cvv-error" message={problem("cvv")} />
          </div>
        )}
      </div>

      <Controller
        control={control}
        name="isDefault"
        render={({ field }) => (
          <Switch id="card-default" label="Set as default payment method" checked={field.value} onCheckedChange={field.onChange} />
        )}
      />

      <div className="flex flex-col-reverse gap-3 pt-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onDone} disabled={busy}>
          Cancel
        </Button>
        <Button type="submit" busy={busy}>
          {busy ? "Processing..." : editing ? "Update Payment Method" : "Add Payment Method"}
        </Button>
      </div>
    </form>
  );
}

function TypeOption({
  label,
  icon,
  checked = false,
  disabled = false,
  badge,
}: {
  label: string;
  icon: ReactNode;
  checked?: boolean;
  disabled?: boolean;
  badge?: ReactNode;
}) {
  return (
    <label
      className={cn(
        "flex items-center gap-2 rounded-lg border p-3 text-sm font-medium has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-brand-500",
        checked
          ? "border-brand-600 bg-brand-50 text-brand-900 dark:border-brand-500 dark:bg-brand-950 dark:text-brand-100"
          : "border-slate-300 text-slate-700 dark:border-slate-700 dark:text-slate-300",
        disabled && "cursor-not-allowed opacity-60",
      )}
    >
      <input type="radio" name="payment-method-type" className="sr-only" checked={checked} disabled={disabled} readOnly />
      {icon}
      <span>{label}</span>
      {badge && <span className="ml-auto">{badge}</span>}
    </label>
  );
}
