import { UserRound } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useFormContext, useWatch } from "react-hook-form";
import type { UseFormReturn } from "react-hook-form";
import { Input } from "@/components/ui/input";
import type { Recipient } from "@/gen/thumela/bff/v1/bff_pb";
import { BANK_NAME } from "@/lib/banks";
import { cn } from "@/lib/cn";
import { formatPhone, saMobileE164 } from "@/lib/phone";
import { findSavedRecipient, useSavedRecipients } from "@/lib/recipients";
import type { SendMoneyValues } from "../../api/send-money";

/** Above this many saved recipients, the picker offers a filter. */
const FILTER_FROM = 6;

/**
 * The recipient step's saved recipients, most recently paid first: picking one fills the name,
 * phone and bank (every field stays editable). Nothing shows while they load, when there are
 * none, or when they cannot be read: typing the details always works.
 */
export function SavedRecipientPicker() {
  const { setValue, clearErrors, control, formState } = useFormContext<SendMoneyValues>();
  const saved = useSavedRecipients();
  const [filter, setFilter] = useState("");
  const [phone, name] = useWatch({ control, name: ["recipientPhone", "recipientName"] });
  const list = saved.data?.recipients ?? [];
  if (list.length === 0) return null;

  const needle = filter.trim().toLowerCase();
  const digits = needle.replace(/\D/g, "");
  const shown = needle
    ? list.filter(
        (r) =>
          r.name.toLowerCase().includes(needle) ||
          (digits !== "" && (r.phone.includes(digits) || (digits.startsWith("0") && r.phone.startsWith(`+27${digits.slice(1)}`)))),
      )
    : list;
  const current = saMobileE164(phone ?? "");

  const pick = (recipient: Recipient) => {
    const options = { shouldValidate: formState.isSubmitted, shouldDirty: true };
    setValue("recipientName", recipient.name, options);
    setValue("recipientPhone", formatPhone(recipient.phone), options);
    setValue("bank", String(recipient.bank), options);
    clearErrors(["recipientName", "recipientPhone", "bank"]);
  };

  return (
    <section aria-labelledby="saved-recipients-title" className="mt-4">
      <h3 id="saved-recipients-title" className="text-sm font-medium text-slate-800 dark:text-slate-100">
        Saved recipients
      </h3>
      {list.length > FILTER_FROM && (
        <Input
          type="search"
          aria-label="Find a saved recipient"
          placeholder="Find by name or number"
          className="mt-2"
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
        />
      )}
      <ul aria-label="Saved recipients" className="mt-2 grid gap-2 sm:grid-cols-2">
        {shown.map((recipient) => {
          const selected = current === recipient.phone && name?.trim() === recipient.name;
          return (
            <li key={recipient.id}>
              <button
                type="button"
                aria-pressed={selected}
                onClick={() => pick(recipient)}
                className={cn(
                  "flex w-full items-center gap-3 rounded-lg border p-3 text-left text-sm outline-none transition-colors",
                  "focus-visible:ring-2 focus-visible:ring-brand-500",
                  selected
                    ? "border-brand-600 bg-brand-50 dark:border-brand-400 dark:bg-brand-950"
                    : "border-slate-200 hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800",
                )}
              >
                <UserRound aria-hidden="true" className="size-5 shrink-0 text-slate-500" />
                <span className="min-w-0">
                  <span className="block truncate font-medium text-slate-900 dark:text-slate-100">{recipient.name}</span>
                  <span className="block truncate text-slate-600 dark:text-slate-400">
                    {formatPhone(recipient.phone)} · {BANK_NAME[recipient.bank]}
                  </span>
                </span>
              </button>
            </li>
          );
        })}
      </ul>
      {shown.length === 0 && <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">No saved recipient matches.</p>}
      <p className="mt-4 text-sm text-slate-600 dark:text-slate-400">Or enter their details:</p>
    </section>
  );
}

/** 'Save {name} for next time', ticked unless the sender unticks it. */
export function SaveRecipientOption({ name }: { name: string }) {
  const { register } = useFormContext<SendMoneyValues>();
  return (
    <div className="flex items-start gap-3">
      <input id="save-recipient" type="checkbox" className="mt-0.5 size-4 shrink-0 accent-brand-700" {...register("saveRecipient")} />
      <label htmlFor="save-recipient" className="text-sm font-medium text-slate-800 dark:text-slate-100">
        Save {name || "this recipient"} for next time
      </label>
    </div>
  );
}

/**
 * A wizard opened with a phone (Send Similar, Resend, a recipient's Send) prefers the saved
 * recipient's current name and bank over the link's, once they are read, unless the sender has
 * already changed the phone.
 */
export function usePreferSavedRecipient(form: UseFormReturn<SendMoneyValues>, initialPhone: string) {
  const saved = useSavedRecipients();
  const applied = useRef(false);
  useEffect(() => {
    if (applied.current || !initialPhone || !saved.data) return;
    applied.current = true;
    if (form.getValues("recipientPhone") !== initialPhone) return;
    const match = findSavedRecipient(saved.data.recipients, initialPhone);
    if (!match) return;
    form.setValue("recipientName", match.name);
    form.setValue("bank", String(match.bank));
  }, [form, initialPhone, saved.data]);
}
