import { Code } from "@connectrpc/connect";
import { zodResolver } from "@hookform/resolvers/zod";
import { UserRound } from "lucide-react";
import { AlertDialog } from "radix-ui";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, useReturnFocus } from "@/components/ui/dialog";
import { FieldError } from "@/components/ui/field-error";
import { Input, Label } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Bank, ScheduleState } from "@/gen/thumela/bff/v1/bff_pb";
import type { Recipient } from "@/gen/thumela/bff/v1/bff_pb";
import { BANK_NAME } from "@/lib/banks";
import { errorMessage, fieldViolations, hasCode } from "@/lib/errors";
import { formatPhone } from "@/lib/phone";
import { useSchedules } from "@/lib/schedules";
import { RECIPIENT_MESSAGES, recipientSchema, useDeleteRecipient, useUpdateRecipient } from "../api/recipients";
import type { RecipientFormValues } from "../api/recipients";
import { scheduleName } from "./scheduled-sends";

/** The banks a recipient can have, in the order ListBanks gives them. */
const BANKS = [Bank.STANDARD_BANK, Bank.ABSA, Bank.FNB, Bank.NEDBANK, Bank.CAPITEC];

interface EditRecipientDialogProps {
  recipient?: Recipient;
  returnFocus?: HTMLElement | null;
  onClose: () => void;
}

/** Edit a saved recipient: name, phone and bank. The form is mounted afresh each time. */
export function EditRecipientDialog({ recipient, returnFocus, onClose }: EditRecipientDialogProps) {
  return (
    <Dialog open={Boolean(recipient)} onOpenChange={(open) => !open && onClose()}>
      {recipient && (
        <DialogContent title="Edit Recipient" description="Your next transfers to them use these details." returnFocus={returnFocus}>
          <RecipientForm recipient={recipient} onDone={onClose} />
        </DialogContent>
      )}
    </Dialog>
  );
}

function RecipientForm({ recipient, onDone }: { recipient: Recipient; onDone: () => void }) {
  const update = useUpdateRecipient();
  const form = useForm<RecipientFormValues>({
    resolver: zodResolver(recipientSchema),
    defaultValues: { name: recipient.name, phone: formatPhone(recipient.phone), bank: String(recipient.bank) },
  });
  const {
    register,
    setError,
    formState: { errors },
  } = form;

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      await update.mutateAsync({
        recipientId: recipient.id,
        name: values.name.trim(),
        phone: values.phone.trim(),
        bank: Number(values.bank) as Bank,
      });
      toast.success(RECIPIENT_MESSAGES.updated, { description: `${values.name.trim()}'s details were saved.` });
      onDone();
    } catch (error) {
      // The server's words under the field it names (the name rule, the phone, a phone already
      // saved under another recipient); the dialog stays open to fix it.
      const violations = fieldViolations(error);
      for (const v of violations) {
        if (v.field === "name" || v.field === "phone" || v.field === "bank") setError(v.field, { message: v.description });
      }
      if (violations.length === 0 && hasCode(error, Code.AlreadyExists)) {
        setError("phone", { message: errorMessage(error, RECIPIENT_MESSAGES.updateFailedFallback) });
      }
      toast.error(RECIPIENT_MESSAGES.updateFailed, { description: errorMessage(error, RECIPIENT_MESSAGES.updateFailedFallback) });
    }
  });

  return (
    <form noValidate onSubmit={(event) => void onSubmit(event)} className="space-y-4">
      <div>
        <Label htmlFor="recipient-edit-name">Name</Label>
        <Input
          id="recipient-edit-name"
          autoComplete="off"
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={errors.name ? "recipient-edit-name-error" : undefined}
          {...register("name")}
        />
        <FieldError id="recipient-edit-name-error" message={errors.name?.message} />
      </div>
      <div>
        <Label htmlFor="recipient-edit-phone">Phone Number</Label>
        <Input
          id="recipient-edit-phone"
          type="tel"
          autoComplete="off"
          placeholder="e.g. 082 123 4567"
          aria-invalid={errors.phone ? true : undefined}
          aria-describedby={errors.phone ? "recipient-edit-phone-error" : undefined}
          {...register("phone")}
        />
        <FieldError id="recipient-edit-phone-error" message={errors.phone?.message} />
      </div>
      <div>
        <Label htmlFor="recipient-edit-bank">Bank</Label>
        <NativeSelect
          id="recipient-edit-bank"
          aria-invalid={errors.bank ? true : undefined}
          aria-describedby={errors.bank ? "recipient-edit-bank-error" : undefined}
          {...register("bank")}
        >
          <option value="">Select a bank</option>
          {BANKS.map((bank) => (
            <option key={bank} value={String(bank)}>
              {BANK_NAME[bank]}
            </option>
          ))}
        </NativeSelect>
        <FieldError id="recipient-edit-bank-error" message={errors.bank?.message} />
      </div>
      <div className="flex flex-col-reverse gap-3 pt-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onDone} disabled={update.isPending}>
          Cancel
        </Button>
        <Button type="submit" busy={update.isPending}>
          Save Changes
        </Button>
      </div>
    </form>
  );
}

/** Confirms deleting a saved recipient (their transfers stay in the history). */
export function DeleteRecipientDialog({
  recipient,
  returnFocus,
  onClose,
}: {
  recipient?: Recipient;
  returnFocus?: HTMLElement | null;
  onClose: () => void;
}) {
  const remove = useDeleteRecipient();
  const schedules = useSchedules();
  const warning = recipient
    ? recipientSchedulesWarning(
        recipient.name,
        (schedules.data?.schedules ?? [])
          .filter((s) => s.recipientPhone === recipient.phone && s.state !== ScheduleState.ENDED)
          .map(scheduleName),
      )
    : "";
  // Back to the recipient's Delete button; once they are deleted, to the search box.
  const focusReturn = useReturnFocus(returnFocus, () => document.getElementById("recipients-search"));

  const onDelete = async () => {
    if (!recipient) return;
    try {
      await remove.mutateAsync({ recipientId: recipient.id });
      toast.success(RECIPIENT_MESSAGES.deleted, { description: `${recipient.name} was removed from your saved recipients.` });
    } catch (error) {
      // Already gone (another tab deleted it): the list refreshes either way.
      if (!hasCode(error, Code.NotFound)) {
        toast.error(RECIPIENT_MESSAGES.deleteFailed, { description: errorMessage(error, RECIPIENT_MESSAGES.deleteFailedFallback) });
      }
    }
    onClose();
  };

  return (
    <AlertDialog.Root open={Boolean(recipient)} onOpenChange={(open) => !open && !remove.isPending && onClose()}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-slate-950/50" />
        <AlertDialog.Content
          {...focusReturn}
          className="fixed left-1/2 top-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-xl border border-slate-200 bg-white p-6 shadow-xl dark:border-slate-800 dark:bg-slate-900"
        >
          <AlertDialog.Title className="text-lg font-semibold">Delete Recipient</AlertDialog.Title>
          <AlertDialog.Description className="mt-2 text-sm text-slate-600 dark:text-slate-400">
            Are you sure you want to delete this saved recipient? Your past transfers to them stay in your history.
          </AlertDialog.Description>
          {warning && (
            <p role="note" className="mt-3 rounded-lg bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950/40 dark:text-amber-200">
              {warning}
            </p>
          )}
          {recipient && (
            <div className="mt-4 flex items-center gap-3 rounded-lg bg-slate-50 p-3 dark:bg-slate-800/60">
              <UserRound aria-hidden="true" className="size-5 text-slate-500" />
              <div>
                <p className="font-medium">{recipient.name}</p>
                <p className="text-sm text-slate-600 dark:text-slate-400">
                  {formatPhone(recipient.phone)} · {BANK_NAME[recipient.bank]}
                </p>
              </div>
            </div>
          )}
          <div className="mt-6 flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
            <AlertDialog.Cancel asChild>
              <Button variant="outline" disabled={remove.isPending}>
                Cancel
              </Button>
            </AlertDialog.Cancel>
            <Button variant="destructive" busy={remove.isPending} onClick={() => void onDelete()}>
              Delete
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}

/**
 * What deleting a recipient does not do: stop the scheduled sends to them (a schedule keeps its
 * own copy of the name and number). `sends` are the names of those that have not ended.
 */
export function recipientSchedulesWarning(name: string, sends: string[]): string {
  if (sends.length === 0) return "";
  const which = sends.length === 1 ? `a scheduled send to ${name} (${sends[0]})` : `${sends.length} scheduled sends to ${name} (${sends.join("; ")})`;
  const them = sends.length === 1 ? "it" : "them";
  return `You have ${which}. Deleting ${name} does not stop ${them}: pause or delete ${them} under Scheduled sends.`;
}
