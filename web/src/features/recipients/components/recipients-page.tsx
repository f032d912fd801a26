import { CalendarPlus, Pencil, Search, Send, Trash2, UsersRound } from "lucide-react";
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { toast } from "sonner";
import { Button, buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Spinner } from "@/components/ui/spinner";
import type { Recipient } from "@/gen/thumela/bff/v1/bff_pb";
import { BANK_NAME } from "@/lib/banks";
import { formatRecentDate, toDate } from "@/lib/date";
import { formatPhone } from "@/lib/phone";
import { useSavedRecipients } from "@/lib/recipients";
import { useDebouncedValue } from "@/lib/use-debounced-value";
import { RECIPIENT_MESSAGES } from "../api/recipients";
import { DeleteRecipientDialog, EditRecipientDialog } from "./recipient-dialogs";
import { ScheduleSendDialog } from "./schedule-dialog";
import { ScheduledSends } from "./scheduled-sends";

type Open = { recipient: Recipient; returnFocus: HTMLElement | null };

/**
 * /recipients: the people the sender paid, saved for next time (search, edit, delete, schedule
 * a send), and the sender's scheduled sends.
 */
export function RecipientsPage() {
  const [search, setSearch] = useState("");
  const query = useDebouncedValue(search.trim(), 250);
  const recipients = useSavedRecipients(query);
  const [editing, setEditing] = useState<Open>();
  const [deleting, setDeleting] = useState<Open>();
  const [scheduling, setScheduling] = useState<Open>();

  useEffect(() => {
    if (recipients.isError) toast.error(RECIPIENT_MESSAGES.loadFailed, { description: "Please refresh the page and try again." });
  }, [recipients.isError, recipients.errorUpdatedAt]);

  const list = recipients.data?.recipients ?? [];
  const searching = query !== "";

  return (
    <div className="mx-auto w-full max-w-5xl">
      <div>
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Recipients</h1>
        <p className="mt-1 text-slate-600 dark:text-slate-400">The people you send money to, ready for your next transfer.</p>
      </div>

      <div className="relative mt-6 max-w-md">
        <Search aria-hidden="true" className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-slate-400" />
        <Input
          id="recipients-search"
          type="search"
          aria-label="Search recipients"
          placeholder="Search by name or phone number"
          className="pl-9"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
      </div>

      <div className="mt-6">
        {recipients.isPending ? (
          <div role="status" className="flex items-center justify-center gap-2 py-16 text-slate-600 dark:text-slate-400">
            <Spinner className="size-5 text-brand-600" />
            <span>Loading your recipients...</span>
          </div>
        ) : recipients.isError ? (
          <Card className="flex flex-col items-center gap-3 p-10 text-center">
            <p className="font-medium">{RECIPIENT_MESSAGES.loadFailed}</p>
            <Button variant="outline" busy={recipients.isFetching} onClick={() => void recipients.refetch()}>
              Try again
            </Button>
          </Card>
        ) : list.length === 0 ? (
          searching ? (
            <Card className="p-10 text-center text-slate-600 dark:text-slate-400">
              <p role="status">No saved recipients match “{query}”.</p>
            </Card>
          ) : (
            <EmptyState />
          )
        ) : (
          <ul aria-label="Your saved recipients" className="grid gap-4 md:grid-cols-2">
            {list.map((recipient) => (
              <li key={recipient.id}>
                <RecipientCard
                  recipient={recipient}
                  onEdit={(returnFocus) => setEditing({ recipient, returnFocus })}
                  onDelete={(returnFocus) => setDeleting({ recipient, returnFocus })}
                  onSchedule={(returnFocus) => setScheduling({ recipient, returnFocus })}
                />
              </li>
            ))}
          </ul>
        )}
      </div>

      <EditRecipientDialog recipient={editing?.recipient} returnFocus={editing?.returnFocus} onClose={() => setEditing(undefined)} />
      <DeleteRecipientDialog recipient={deleting?.recipient} returnFocus={deleting?.returnFocus} onClose={() => setDeleting(undefined)} />
      <ScheduleSendDialog recipient={scheduling?.recipient} returnFocus={scheduling?.returnFocus} onClose={() => setScheduling(undefined)} />

      <ScheduledSends />
    </div>
  );
}

function EmptyState() {
  return (
    <Card className="flex flex-col items-center gap-3 px-6 py-12 text-center">
      <span className="flex size-12 items-center justify-center rounded-full bg-brand-50 text-brand-700 dark:bg-brand-950 dark:text-brand-300">
        <UsersRound aria-hidden="true" className="size-6" />
      </span>
      <p className="max-w-sm text-slate-700 dark:text-slate-300">{RECIPIENT_MESSAGES.empty}</p>
      <Link to="/send-money" className={buttonClasses("primary", "md", "mt-2")}>
        Send Money
      </Link>
    </Card>
  );
}

/** /send-money with the recipient filled in (the wizard prefers the saved details by phone). */
function sendToPath(recipient: Recipient): string {
  const params = new URLSearchParams({ recipient: recipient.name, phone: recipient.phone, bank: String(recipient.bank) });
  return `/send-money?${params.toString()}`;
}

function RecipientCard({
  recipient,
  onEdit,
  onDelete,
  onSchedule,
}: {
  recipient: Recipient;
  onEdit: (button: HTMLElement | null) => void;
  onDelete: (button: HTMLElement | null) => void;
  onSchedule: (button: HTMLElement | null) => void;
}) {
  const nameId = `recipient-${recipient.id}-name`;
  const paid = toDate(recipient.lastPaidAt);
  return (
    <Card aria-labelledby={nameId} className="flex h-full flex-col gap-3 p-5">
      <div className="min-w-0">
        <h2 id={nameId} className="truncate font-semibold">
          {recipient.name}
        </h2>
        <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">{formatPhone(recipient.phone)}</p>
        <p className="text-sm text-slate-500 dark:text-slate-400">
          {BANK_NAME[recipient.bank]}
          {paid && ` · Last paid ${formatRecentDate(paid)}`}
        </p>
      </div>
      <div className="mt-auto flex flex-wrap gap-2">
        <Link to={sendToPath(recipient)} className={buttonClasses("primary", "sm")} aria-label={`Send money to ${recipient.name}`}>
          <Send aria-hidden="true" className="size-4" />
          Send
        </Link>
        <Button variant="outline" size="sm" aria-label={`Schedule a send to ${recipient.name}`} onClick={(event) => onSchedule(event.currentTarget)}>
          <CalendarPlus aria-hidden="true" className="size-4" />
          Schedule a send
        </Button>
        <Button variant="outline" size="sm" aria-label={`Edit ${recipient.name}`} onClick={(event) => onEdit(event.currentTarget)}>
          <Pencil aria-hidden="true" className="size-4" />
          Edit
        </Button>
        <Button
          variant="ghost"
          size="sm"
          className="text-red-700 dark:text-red-300"
          aria-label={`Delete ${recipient.name}`}
          onClick={(event) => onDelete(event.currentTarget)}
        >
          <Trash2 aria-hidden="true" className="size-4" />
          Delete
        </Button>
      </div>
    </Card>
  );
}
