import { Code } from "@connectrpc/connect";
import { CreditCard, EllipsisVertical, Landmark, Pencil, Plus, Star, Trash2 } from "lucide-react";
import { AlertDialog, DropdownMenu } from "radix-ui";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { useReturnFocus } from "@/components/ui/dialog";
import { Spinner } from "@/components/ui/spinner";
import { PaymentMethodType, ScheduleState } from "@/gen/thumela/bff/v1/bff_pb";
import type { PaymentMethod } from "@/gen/thumela/bff/v1/bff_pb";
import { hasCode } from "@/lib/errors";
import { useSchedules } from "@/lib/schedules";
import {
  BRAND_LABEL,
  formatExpiry,
  maskedLastFour,
  useDeletePaymentMethod,
  usePaymentMethods,
  useSetDefaultPaymentMethod,
} from "../api/payment-methods";
import { PaymentMethodDialog } from "./payment-method-dialog";

/** Focus lands here when the card whose menu opened a dialog is gone (deleted). */
const ADD_BUTTON_ID = "add-payment-method";

type Editor = { mode: "closed" } | { mode: "add" } | { mode: "edit"; method: PaymentMethod; returnFocus: HTMLElement | null };

/** /payment-methods: the saved cards, adding, editing, the default and deleting. */
export function PaymentMethodsPage() {
  const methods = usePaymentMethods();
  const setDefault = useSetDefaultPaymentMethod();
  const [editor, setEditor] = useState<Editor>({ mode: "closed" });
  const [deleting, setDeleting] = useState<{ method: PaymentMethod; returnFocus: HTMLElement | null }>();

  useEffect(() => {
    if (methods.isError) {
      toast.error("Failed to load payment methods", { description: "Please refresh the page and try again." });
    }
  }, [methods.isError, methods.errorUpdatedAt]);

  const openAdd = () => setEditor({ mode: "add" });

  const makeDefault = async (method: PaymentMethod) => {
    try {
      await setDefault.mutateAsync({ id: method.id });
      toast.success("Default payment method set", { description: `${method.name} is now your default payment method.` });
    } catch {
      toast.error("Update failed", { description: "There was a problem setting your default payment method." });
    }
  };

  const list = methods.data?.paymentMethods ?? [];

  return (
    <div className="mx-auto w-full max-w-5xl">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Payment Methods</h1>
          <p className="mt-1 text-slate-600 dark:text-slate-400">Manage your cards and bank accounts for sending money.</p>
        </div>
        <Button id={ADD_BUTTON_ID} onClick={openAdd}>
          <Plus aria-hidden="true" className="size-4" />
          Add Method
        </Button>
      </div>

      <div className="mt-6">
        {methods.isPending ? (
          <div role="status" className="flex items-center justify-center gap-2 py-16 text-slate-600 dark:text-slate-400">
            <Spinner className="size-5 text-brand-600" />
            <span>Loading your payment methods...</span>
          </div>
        ) : methods.isError ? (
          <Card className="flex flex-col items-center gap-3 p-10 text-center">
            <p className="font-medium">We couldn't load your payment methods.</p>
            <Button variant="outline" busy={methods.isFetching} onClick={() => void methods.refetch()}>
              Try again
            </Button>
          </Card>
        ) : list.length === 0 ? (
          <EmptyState onAdd={openAdd} />
        ) : (
          <ul aria-label="Your payment methods" className="grid gap-4 md:grid-cols-2">
            {list.map((method) => (
              <li key={method.id}>
                <PaymentMethodCard
                  method={method}
                  onEdit={(returnFocus) => setEditor({ mode: "edit", method, returnFocus })}
                  onSetDefault={() => void makeDefault(method)}
                  onDelete={(returnFocus) => setDeleting({ method, returnFocus })}
                />
              </li>
            ))}
          </ul>
        )}
      </div>

      <PaymentMethodDialog
        open={editor.mode !== "closed"}
        onOpenChange={(open) => !open && setEditor({ mode: "closed" })}
        method={editor.mode === "edit" ? editor.method : undefined}
        returnFocus={editor.mode === "edit" ? editor.returnFocus : undefined}
      />
      <DeletePaymentMethodDialog
        method={deleting?.method}
        returnFocus={deleting?.returnFocus}
        onClose={() => setDeleting(undefined)}
      />
    </div>
  );
}

function EmptyState({ onAdd }: { onAdd: () => void }) {
  return (
    <Card className="flex flex-col items-center gap-3 px-6 py-12 text-center">
      <span className="flex size-12 items-center justify-center rounded-full bg-brand-50 text-brand-700 dark:bg-brand-950 dark:text-brand-300">
        <CreditCard aria-hidden="true" className="size-6" />
      </span>
      <h2 className="text-lg font-semibold">No Payment Methods</h2>
      <p className="max-w-sm text-sm text-slate-600 dark:text-slate-400">
        Add your first card or bank account to start sending money.
      </p>
      <Button onClick={onAdd} className="mt-2">
        <Plus aria-hidden="true" className="size-4" />
        Add Payment Method
      </Button>
    </Card>
  );
}

// The highlighted item is the focused one: a ring as well as the tint, so that a keyboard user
// sees where they are (the tint alone is about 1.1:1 against the menu).
const menuItemClasses =
  "flex cursor-pointer select-none items-center gap-2 rounded-md px-3 py-2 text-sm outline-none " +
  "data-[highlighted]:bg-slate-100 data-[highlighted]:ring-2 data-[highlighted]:ring-inset data-[highlighted]:ring-brand-500 " +
  "dark:data-[highlighted]:bg-slate-800";

function PaymentMethodCard({
  method,
  onEdit,
  onSetDefault,
  onDelete,
}: {
  method: PaymentMethod;
  /** Edit and Delete hand over the menu's button, for focus to return to. */
  onEdit: (menuButton: HTMLElement | null) => void;
  onSetDefault: () => void;
  onDelete: (menuButton: HTMLElement | null) => void;
}) {
  const menuButton = useRef<HTMLButtonElement>(null);
  const bank = method.type === PaymentMethodType.BANK_ACCOUNT;
  const Icon = bank ? Landmark : CreditCard;
  const nameId = `payment-method-${method.id}-name`;
  return (
    <Card aria-labelledby={nameId} className="flex h-full items-start gap-4 p-5">
      <span className="flex size-11 shrink-0 items-center justify-center rounded-lg bg-brand-50 text-brand-700 dark:bg-brand-950 dark:text-brand-300">
        <Icon aria-hidden="true" className="size-6" />
        {bank && <span className="sr-only">Bank account</span>}
      </span>
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-2">
          <h2 id={nameId} className="truncate font-semibold">
            {method.name}
          </h2>
          {method.isDefault && <Badge>Default</Badge>}
        </div>
        {/* The brand is for everyone to see (DECISIONS.md: lists show brand, name, last four and
            expiry), not for screen readers only. */}
        {!bank && (
          <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">
            <span className="font-medium">{BRAND_LABEL[method.brand]}</span>{" "}
            <span className="font-mono">{maskedLastFour(method.lastFour)}</span>
          </p>
        )}
        {method.expiryMonth > 0 && (
          <p className="mt-0.5 text-sm text-slate-500 dark:text-slate-400">Exp: {formatExpiry(method)}</p>
        )}
      </div>
      <DropdownMenu.Root modal={false}>
        <DropdownMenu.Trigger
          ref={menuButton}
          // The spec's title, and the card it is for: five cards' menus must not all read
          // "Options" in a screen reader's list of buttons.
          title="Options"
          aria-label={`Options for ${method.name}`}
          className="inline-flex size-9 shrink-0 items-center justify-center rounded-lg text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
        >
          <EllipsisVertical aria-hidden="true" className="size-5" />
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content
            align="end"
            sideOffset={4}
            className="z-50 min-w-44 rounded-lg border border-slate-200 bg-white p-1 shadow-lg dark:border-slate-800 dark:bg-slate-900"
          >
            <DropdownMenu.Item className={menuItemClasses} onSelect={() => onEdit(menuButton.current)}>
              <Pencil aria-hidden="true" className="size-4" />
              Edit Details
            </DropdownMenu.Item>
            {!method.isDefault && (
              <DropdownMenu.Item className={menuItemClasses} onSelect={onSetDefault}>
                <Star aria-hidden="true" className="size-4" />
                Set as Default
              </DropdownMenu.Item>
            )}
            <DropdownMenu.Item className={`${menuItemClasses} text-red-700 dark:text-red-300`} onSelect={() => onDelete(menuButton.current)}>
              <Trash2 aria-hidden="true" className="size-4" />
              Delete
            </DropdownMenu.Item>
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
    </Card>
  );
}

/**
 * What deleting a card does to the scheduled sends it pays for: none has run yet (a card that
 * paid one cannot be deleted), and none can change its card, so each would fail when due.
 */
export function scheduledSendsWarning(recipients: string[]): string {
  if (recipients.length === 0) return "";
  const sends = recipients.length === 1 ? "1 scheduled send" : `${recipients.length} scheduled sends`;
  const them = recipients.length === 1 ? "it" : "each of them";
  return (
    `This card pays for ${sends} (to ${recipients.join(", ")}). If you delete it, ${them} will fail when due, ` +
    "and we'll e-mail you each time, until you schedule it again with another card."
  );
}

/**
 * Confirms a deletion. When transfers use the method (FailedPrecondition) the dialog stays
 * open with the reason; other failures close it with a toast. When scheduled sends that have not ended pay
 * with the card, it says what deleting it does to them first.
 */
function DeletePaymentMethodDialog({
  method,
  returnFocus,
  onClose,
}: {
  method?: PaymentMethod;
  returnFocus?: HTMLElement | null;
  onClose: () => void;
}) {
  const remove = useDeletePaymentMethod();
  const schedules = useSchedules();
  const warning = scheduledSendsWarning(
    (schedules.data?.schedules ?? [])
      .filter((s) => method && s.paymentMethodId === method.id && s.state !== ScheduleState.ENDED)
      .map((s) => s.recipientName),
  );
  // Back to the card's menu button; a deleted card's button is gone with it: Add Method then.
  const focusReturn = useReturnFocus(returnFocus, () => document.getElementById(ADD_BUTTON_ID));

  const onDelete = async () => {
    if (!method) return;
    try {
      await remove.mutateAsync({ id: method.id });
      toast.success("Payment method deleted", { description: `${method.name} has been removed from your account.` });
      onClose();
    } catch (error) {
      if (hasCode(error, Code.FailedPrecondition)) {
        toast.error("Cannot delete payment method", {
          description: "This payment method is used in transactions and cannot be deleted.",
        });
        return;
      }
      toast.error("Delete failed", { description: "There was a problem deleting your payment method." });
      onClose();
    }
  };

  return (
    <AlertDialog.Root open={Boolean(method)} onOpenChange={(open) => !open && !remove.isPending && onClose()}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-slate-950/50" />
        <AlertDialog.Content
          {...focusReturn}
          className="fixed left-1/2 top-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-xl border border-slate-200 bg-white p-6 shadow-xl dark:border-slate-800 dark:bg-slate-900">
          <AlertDialog.Title className="text-lg font-semibold">Delete Payment Method</AlertDialog.Title>
          <AlertDialog.Description className="mt-2 text-sm text-slate-600 dark:text-slate-400">
            Are you sure you want to delete this payment method? This action cannot be undone.
          </AlertDialog.Description>
          {method && (
            <div className="mt-4 flex items-center gap-3 rounded-lg bg-slate-50 p-3 dark:bg-slate-800/60">
              <CreditCard aria-hidden="true" className="size-5 text-slate-500" />
              <div>
                <p className="font-medium">{method.name}</p>
                <p className="font-mono text-sm text-slate-600 dark:text-slate-400">{maskedLastFour(method.lastFour)}</p>
              </div>
            </div>
          )}
          {warning && (
            <p role="note" className="mt-4 rounded-lg bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950/40 dark:text-amber-200">
              {warning}
            </p>
          )}
          <div className="mt-6 flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
            <AlertDialog.Cancel asChild>
              <Button variant="outline" disabled={remove.isPending}>
                Cancel
              </Button>
            </AlertDialog.Cancel>
            <Button variant="destructive" busy={remove.isPending} onClick={() => void onDelete()}>
              {remove.isPending ? "Deleting..." : "Delete"}
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
