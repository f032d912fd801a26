import { zodResolver } from "@hookform/resolvers/zod";
import { Code } from "@connectrpc/connect";
import { MessageSquare, Phone } from "lucide-react";
import type { LucideIcon } from "lucide-react";
import { useId, useRef, useState } from "react";
import type { ComponentType, KeyboardEvent } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { FieldError } from "@/components/ui/field-error";
import { Input, Label } from "@/components/ui/input";
import type { Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { errorMessage, fieldViolations, hasCode } from "@/lib/errors";
import { INVALID_MOBILE, PHONE_PLACEHOLDER, formatPhone, saMobileE164 } from "@/lib/phone";
import { z } from "@/lib/zod";
import { useChangeRecipientPhone, useRememberTransfer, useResendVoucher } from "../api/transfers";
import { isStepUpRequired } from "@/lib/step-up";
import { StepUpDialog } from "@/components/step-up-dialog";

/**
 * The sender's two ways to get a voucher that waits for collection to the recipient again. Both
 * re-issue it: a new voucher number (and a new PIN unless the sender chose it), and the old
 * number stops working at once. Each opens an inline step first (a confirmation that says so,
 * the new number's form) and answers the re-issued transfer, shown at once.
 */
interface VoucherActionsProps {
  transfer: Transfer;
  onChanged: (transfer: Transfer) => void;
}

export const VOUCHER_ACTION_TEXT = {
  resent: "Voucher SMS sent again",
  resendFailed: "Resend failed",
  resendFallback: "There was a problem resending the voucher SMS.",
  changed: "Phone number changed",
  changeFailed: "Could not change the phone number",
  changeFallback: "There was a problem sending the voucher to the new number.",
} as const;

/** What is new after a re-issue: the number, and the PIN unless the sender chose it. */
function newDetails(transfer: Transfer): string {
  return transfer.voucher?.pinChosenBySender ? "a new voucher number" : "a new voucher number and PIN";
}

export function VoucherActions({ transfer, onChanged }: VoucherActionsProps) {
  const resendsLeft = transfer.voucher?.resendsLeft ?? 0;
  const changesLeft = transfer.voucher?.phoneChangesLeft ?? 0;
  return (
    <section aria-label="Voucher SMS" tabIndex={-1} className="rounded-lg border border-slate-200 p-4 focus:outline-none dark:border-slate-700">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-start">
        <InlineStep
          icon={MessageSquare}
          label="Resend SMS"
          left={resendsLeft}
          hint={leftText(resendsLeft, "resend", "resends", "No resends left")}
          step={ResendConfirmation}
          transfer={transfer}
          onChanged={onChanged}
        />
        <InlineStep
          icon={Phone}
          label="Change phone number"
          left={changesLeft}
          hint={leftText(changesLeft, "change", "changes", "No changes left")}
          step={ChangePhoneForm}
          transfer={transfer}
          onChanged={onChanged}
        />
      </div>
    </section>
  );
}

function leftText(left: number, one: string, many: string, none: string): string {
  if (left <= 0) return none;
  return `${left} ${left === 1 ? one : many} left`;
}

/** What an inline step's content gets from the step that holds it. */
interface StepProps {
  /** The id of the step's form (the toggle's aria-controls). */
  id: string;
  /** Closes the step, the focus back on its toggle. */
  close: () => void;
  /** Props for the step's form: Escape closes it, except while it is sending (busy). */
  escapeCloses: (busy: boolean) => { "data-handles-escape": string; onKeyDown: (event: KeyboardEvent<HTMLFormElement>) => void };
}

interface InlineStepProps extends VoucherActionsProps {
  icon: LucideIcon;
  label: string;
  /** The actions of this kind left ('2 resends left'); none disables the toggle. */
  left: number;
  hint: string;
  /** What the step shows when open (a form), given the transfer. */
  step: ComponentType<StepProps & VoucherActionsProps>;
}

/**
 * An inline step of the dialog (a confirmation, a form) under the toggle button that opens it:
 * closing it gives the focus back to that button, for keyboard users, and Escape inside it
 * closes it rather than the whole dialog (DialogContent leaves Escape to a `data-handles-escape`
 * element).
 */
function InlineStep({ icon: Icon, label, left, hint, step: Step, transfer, onChanged }: InlineStepProps) {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const id = useId();
  const hintId = useId();
  const close = () => {
    setOpen(false);
    requestAnimationFrame(() => {
      const button = toggle.current;
      // After the last resend or change the button is disabled and cannot take the focus: the
      // voucher's section around it does, so the keyboard stays in place.
      if (button?.disabled) button.closest<HTMLElement>("section")?.focus();
      else button?.focus();
    });
  };
  const escapeCloses = (busy: boolean) => ({
    "data-handles-escape": "",
    onKeyDown: (event: KeyboardEvent<HTMLFormElement>) => {
      if (event.key !== "Escape" || busy) return;
      event.stopPropagation();
      close();
    },
  });

  return (
    <div className="flex-1">
      <Button
        ref={toggle}
        variant="outline"
        className="w-full sm:w-auto"
        disabled={left <= 0}
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        aria-describedby={hintId}
        onClick={() => setOpen(!open)}
      >
        <Icon aria-hidden="true" className="size-4" />
        {label}
      </Button>
      <p id={hintId} className="mt-1.5 text-xs text-slate-500 dark:text-slate-400">
        {hint}
      </p>
      {open && <Step id={id} close={close} escapeCloses={escapeCloses} transfer={transfer} onChanged={onChanged} />}
    </div>
  );
}

/**
 * The old voucher stops working the moment a new one is issued, perhaps while the recipient
 * stands at an ATM with it: the sender confirms first, told exactly that.
 */
function ResendConfirmation({ id, close, escapeCloses, transfer, onChanged }: StepProps & VoucherActionsProps) {
  const resend = useResendVoucher();
  const remember = useRememberTransfer();

  const run = async () => {
    try {
      const response = await resend.mutateAsync({ id: transfer.id });
      const reissued = response.transfer ?? transfer;
      remember(reissued);
      onChanged(reissued);
      close();
      toast.success(VOUCHER_ACTION_TEXT.resent, {
        description: `${reissued.recipientName} gets ${newDetails(reissued)} by SMS on ${formatPhone(reissued.recipientPhone)}. The old voucher number no longer works.`,
      });
    } catch (error) {
      toast.error(VOUCHER_ACTION_TEXT.resendFailed, { description: errorMessage(error, VOUCHER_ACTION_TEXT.resendFallback) });
    }
  };

  return (
    <form
      id={id}
      aria-label="Resend the voucher SMS"
      aria-describedby={`${id}-text`}
      onSubmit={(event) => {
        event.preventDefault();
        void run();
      }}
      {...escapeCloses(resend.isPending)}
      className="mt-3 space-y-3"
    >
      <p id={`${id}-text`} className="text-sm text-slate-700 dark:text-slate-300">
        {transfer.recipientName || "The recipient"} gets {newDetails(transfer)} by SMS on {formatPhone(transfer.recipientPhone)}. The old
        voucher number stops working at once.
      </p>
      <div className="flex flex-col-reverse gap-2 sm:flex-row">
        {/* eslint-disable-next-line jsx-a11y/no-autofocus -- the step opens when the user asks to resend: focus goes to its safe choice first. */}
        <Button variant="ghost" size="sm" autoFocus onClick={close} disabled={resend.isPending}>
          Cancel
        </Button>
        <Button type="submit" size="sm" busy={resend.isPending}>
          {resend.isPending ? "Sending..." : "Send new voucher"}
        </Button>
      </div>
    </form>
  );
}

function phoneSchema(current: string, name: string) {
  return z.object({
    phone: z
      .string()
      .trim()
      .superRefine((value, ctx) => {
        const e164 = saMobileE164(value);
        if (!e164) ctx.addIssue({ code: "custom", message: INVALID_MOBILE });
        else if (e164 === current)
          ctx.addIssue({ code: "custom", message: `This is already ${name}'s number. To send the voucher again, use Resend SMS.` });
      }),
  });
}

function ChangePhoneForm({ id, close, escapeCloses, transfer, onChanged }: StepProps & VoucherActionsProps) {
  const change = useChangeRecipientPhone();
  const remember = useRememberTransfer();
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<{ phone: string }>({
    resolver: zodResolver(phoneSchema(transfer.recipientPhone, transfer.recipientName || "the recipient")),
    defaultValues: { phone: "" },
  });
  const inputId = `${id}-phone`;
  const error = errors.phone?.message;
  // The number waiting for "Confirm it's you": sending a voucher to a phone never paid moves the
  // money there, so the server asks for a step-up as it does for a new transfer.
  const [stepUpFor, setStepUpFor] = useState<string>();

  const submit = ({ phone }: { phone: string }) => send(phone, false);
  const send = async (phone: string, steppedUp: boolean) => {
    try {
      const response = await change.mutateAsync({ id: transfer.id, recipientPhone: phone });
      const changed = response.transfer ?? transfer;
      remember(changed);
      onChanged(changed);
      close();
      toast.success(VOUCHER_ACTION_TEXT.changed, {
        description: `The voucher was sent to ${formatPhone(changed.recipientPhone)} with ${newDetails(changed)}. The old voucher number no longer works.`,
      });
    } catch (failure) {
      if (!steppedUp && isStepUpRequired(failure)) {
        setStepUpFor(phone);
        return;
      }
      // The server's word on the number goes under the field; anything else is a toast.
      const violation = fieldViolations(failure).find((v) => v.field === "recipient_phone");
      if (violation || hasCode(failure, Code.InvalidArgument)) {
        setError("phone", { message: violation?.description || errorMessage(failure, INVALID_MOBILE) }, { shouldFocus: true });
        return;
      }
      toast.error(VOUCHER_ACTION_TEXT.changeFailed, { description: errorMessage(failure, VOUCHER_ACTION_TEXT.changeFallback) });
    }
  };

  return (
    <>
      <form
        id={id}
        aria-label="Change phone number"
        noValidate
        onSubmit={(event) => void handleSubmit(submit)(event)}
        {...escapeCloses(change.isPending)}
        className="mt-3 space-y-3"
      >
        <div>
          <Label htmlFor={inputId}>New phone number</Label>
          <Input
            id={inputId}
            type="tel"
            autoComplete="off"
            // eslint-disable-next-line jsx-a11y/no-autofocus -- the form appears when the user asks to change the number: focus goes to its only field.
            autoFocus
            placeholder={PHONE_PLACEHOLDER}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${inputId}-hint ${inputId}-error` : `${inputId}-hint`}
            {...register("phone")}
          />
          <p id={`${inputId}-hint`} className="mt-1.5 text-xs text-slate-500 dark:text-slate-400">
            A South African mobile number. {transfer.recipientName || "The recipient"} gets {newDetails(transfer)} on it; the old
            voucher number stops working.
          </p>
          <FieldError id={`${inputId}-error`} message={error} />
        </div>
        <div className="flex flex-col-reverse gap-2 sm:flex-row">
          <Button variant="ghost" size="sm" onClick={close} disabled={change.isPending}>
            Cancel
          </Button>
          <Button type="submit" size="sm" busy={change.isPending}>
            {change.isPending ? "Sending..." : "Send to this number"}
          </Button>
        </div>
      </form>
      <StepUpDialog
        open={stepUpFor !== undefined}
        onCancel={() => setStepUpFor(undefined)}
        onConfirmed={() => {
          const phone = stepUpFor;
          setStepUpFor(undefined);
          if (phone !== undefined) void send(phone, true);
        }}
      />
    </>
  );
}
