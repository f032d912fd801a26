import { Code } from "@connectrpc/connect";
import { CalendarClock, CircleAlert, CircleCheck, Pause, Play, Trash2 } from "lucide-react";
import { AlertDialog } from "radix-ui";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { useReturnFocus } from "@/components/ui/dialog";
import { Spinner } from "@/components/ui/spinner";
import { ScheduleState, TransferStatus } from "@/gen/thumela/bff/v1/bff_pb";
import type { Schedule, ScheduleOccurrence } from "@/gen/thumela/bff/v1/bff_pb";
import { BANK_NAME } from "@/lib/banks";
import { formatDay } from "@/lib/date";
import { errorMessage, hasCode } from "@/lib/errors";
import { formatMoney } from "@/lib/money";
import { usePaymentCards } from "@/lib/payment-cards";
import { formatPhone } from "@/lib/phone";
import { FREQUENCY_LABEL, STATE_LABEL, useDeleteSchedule, usePauseSchedule, useResumeSchedule, useSchedules } from "@/lib/schedules";
import { SCHEDULE_MESSAGES } from "../api/schedules";

/** How many of a schedule's recent occurrences its card shows. */
const OCCURRENCES_SHOWN = 5;

/** "R500.00 to Thandi Mokoena, weekly": a schedule's name, for headings and buttons. */
export function scheduleName(schedule: Schedule): string {
  return `${formatMoney(schedule.amountCents)} to ${schedule.recipientName}, ${FREQUENCY_LABEL[schedule.frequency].toLowerCase()}`;
}

type Deleting = { schedule: Schedule; returnFocus: HTMLElement | null };

/**
 * The sender's recurring sends on /recipients: each with its state, next date, amount,
 * recipient, card and recent occurrences (a failed one with its reason); Pause, Resume and
 * Delete (which asks first). The live stream's schedules_changed lists them again.
 */
export function ScheduledSends() {
  const schedules = useSchedules();
  const [deleting, setDeleting] = useState<Deleting>();

  useEffect(() => {
    if (schedules.isError) toast.error(SCHEDULE_MESSAGES.loadFailed, { description: "Please refresh the page and try again." });
  }, [schedules.isError, schedules.errorUpdatedAt]);

  const list = schedules.data?.schedules ?? [];
  return (
    <section aria-labelledby="scheduled-sends-title" className="mt-10">
      <h2 id="scheduled-sends-title" tabIndex={-1} className="text-xl font-semibold tracking-tight outline-none">
        {SCHEDULE_MESSAGES.heading}
      </h2>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{SCHEDULE_MESSAGES.intro}</p>
      <div className="mt-4">
        {schedules.isPending ? (
          <div role="status" className="flex items-center justify-center gap-2 py-10 text-slate-600 dark:text-slate-400">
            <Spinner className="size-5 text-brand-600" />
            <span>{SCHEDULE_MESSAGES.loading}</span>
          </div>
        ) : schedules.isError ? (
          <Card className="flex flex-col items-center gap-3 p-8 text-center">
            <p className="font-medium">{SCHEDULE_MESSAGES.loadFailed}</p>
            <Button variant="outline" busy={schedules.isFetching} onClick={() => void schedules.refetch()}>
              Try again
            </Button>
          </Card>
        ) : list.length === 0 ? (
          <Card className="flex flex-col items-center gap-3 px-6 py-10 text-center">
            <span className="flex size-12 items-center justify-center rounded-full bg-brand-50 text-brand-700 dark:bg-brand-950 dark:text-brand-300">
              <CalendarClock aria-hidden="true" className="size-6" />
            </span>
            <p className="max-w-md text-slate-700 dark:text-slate-300">{SCHEDULE_MESSAGES.empty}</p>
          </Card>
        ) : (
          <ul aria-label="Your scheduled sends" className="grid gap-4 md:grid-cols-2">
            {list.map((schedule) => (
              <li key={schedule.id}>
                <ScheduleCard schedule={schedule} onDelete={(returnFocus) => setDeleting({ schedule, returnFocus })} />
              </li>
            ))}
          </ul>
        )}
      </div>
      <DeleteScheduleDialog deleting={deleting} onClose={() => setDeleting(undefined)} />
    </section>
  );
}

const STATE_TONE: Record<ScheduleState, "brand" | "neutral" | "amber"> = {
  [ScheduleState.UNSPECIFIED]: "neutral",
  [ScheduleState.ACTIVE]: "brand",
  [ScheduleState.PAUSED]: "amber",
  [ScheduleState.ENDED]: "neutral",
};

function ScheduleCard({ schedule, onDelete }: { schedule: Schedule; onDelete: (button: HTMLElement | null) => void }) {
  const name = scheduleName(schedule);
  const titleId = `schedule-${schedule.id}-title`;
  const pause = usePauseSchedule();
  const resume = useResumeSchedule();
  const busy = pause.isPending || resume.isPending;
  // Pause and Resume are one button that changes with the state: the focus stays on it. The
  // card may also move in the list (active ones first), which takes the focus from it; once the
  // new state is shown, the button takes it back.
  const toggle = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  useEffect(() => {
    if (!refocus.current) return;
    refocus.current = false;
    toggle.current?.focus();
  }, [schedule.state]);

  const act = async (action: "pause" | "resume") => {
    refocus.current = true; // before the call: the new state may be shown before it returns
    try {
      if (action === "pause") await pause.mutateAsync({ scheduleId: schedule.id });
      else await resume.mutateAsync({ scheduleId: schedule.id });
      toast.success(action === "pause" ? SCHEDULE_MESSAGES.paused : SCHEDULE_MESSAGES.resumed, {
        description:
          action === "pause"
            ? `Nothing more goes to ${schedule.recipientName} until you resume it.`
            : `Sends to ${schedule.recipientName} start again from the next date.`,
      });
    } catch (error) {
      refocus.current = false; // nothing changed: the focus is still on the button
      toast.error(SCHEDULE_MESSAGES.actionFailed, { description: errorMessage(error, SCHEDULE_MESSAGES.actionFailedFallback) });
    }
  };

  // An active schedule can be paused, a paused one resumed, an ended one neither.
  const toggleAction =
    schedule.state === ScheduleState.ACTIVE
      ? ({ action: "pause", label: "Pause", Icon: Pause } as const)
      : schedule.state === ScheduleState.PAUSED
        ? ({ action: "resume", label: "Resume", Icon: Play } as const)
        : undefined;

  const occurrences = [...schedule.recentOccurrences].sort((a, b) => (a.date < b.date ? 1 : -1)).slice(0, OCCURRENCES_SHOWN);
  // A card deleted since the schedule was made: its next send will fail (and be e-mailed), so
  // the card says so while the schedule can still run. Judged only once the cards are read.
  const { cards, isSuccess: cardsRead } = usePaymentCards();
  const cardGone =
    cardsRead && schedule.state !== ScheduleState.ENDED && !cards?.some((saved) => saved.id === schedule.paymentMethodId);
  const card = schedule.paymentMethodLastFour
    ? `${schedule.paymentMethodName || "Card"} (•••• ${schedule.paymentMethodLastFour})`
    : schedule.paymentMethodName || "Unknown card";

  return (
    <Card aria-labelledby={titleId} className="flex h-full flex-col gap-3 p-5">
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <h3 id={titleId} className="font-semibold">
            <span className="sr-only">{name}</span>
            <span aria-hidden="true">
              {formatMoney(schedule.amountCents)} to {schedule.recipientName}
            </span>
          </h3>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            {formatPhone(schedule.recipientPhone)} · {BANK_NAME[schedule.bank]}
          </p>
        </div>
        <Badge tone={STATE_TONE[schedule.state]}>{STATE_LABEL[schedule.state]}</Badge>
      </div>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-500 dark:text-slate-400">How often</dt>
        <dd>{FREQUENCY_LABEL[schedule.frequency]}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Next send</dt>
        <dd>{schedule.state === ScheduleState.ACTIVE && schedule.nextDate ? formatDay(schedule.nextDate) : schedule.state === ScheduleState.PAUSED ? "Paused" : "None"}</dd>
        {schedule.totalCents > 0n && (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Fee per send</dt>
            <dd className="tabular-nums">{formatMoney(schedule.feeCents)}</dd>
            <dt className="text-slate-500 dark:text-slate-400">Total per send</dt>
            <dd className="font-medium tabular-nums">{formatMoney(schedule.totalCents)}</dd>
          </>
        )}
        <dt className="text-slate-500 dark:text-slate-400">Card</dt>
        <dd>
          {card}
          {cardGone && (
            <span className="block text-amber-800 dark:text-amber-300">
              Removed from your account: the next send will fail. Schedule it again with another card.
            </span>
          )}
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">Runs</dt>
        <dd>
          From {formatDay(schedule.startDate)}
          {schedule.endDate ? ` until ${formatDay(schedule.endDate)}` : ""}
        </dd>
      </dl>
      <div>
        <h4 className="text-sm font-medium text-slate-700 dark:text-slate-200">Recent sends</h4>
        {occurrences.length === 0 ? (
          <p className="mt-1 text-sm text-slate-500 dark:text-slate-400">None yet.</p>
        ) : (
          <ul aria-label={`Recent sends of ${name}`} className="mt-1 space-y-1 text-sm">
            {occurrences.map((occurrence) => (
              <OccurrenceRow key={occurrence.date} occurrence={occurrence} />
            ))}
          </ul>
        )}
      </div>
      <div className="mt-auto flex flex-wrap gap-2 pt-1">
        {toggleAction && (
          <Button ref={toggle} variant="outline" size="sm" busy={busy} aria-label={`${toggleAction.label} ${name}`} onClick={() => void act(toggleAction.action)}>
            <toggleAction.Icon aria-hidden="true" className="size-4" />
            {toggleAction.label}
          </Button>
        )}
        <Button
          variant="ghost"
          size="sm"
          className="text-red-700 dark:text-red-300"
          disabled={busy}
          aria-label={`Delete ${name}`}
          onClick={(event) => onDelete(event.currentTarget)}
        >
          <Trash2 aria-hidden="true" className="size-4" />
          Delete
        </Button>
      </div>
    </Card>
  );
}

/**
 * Whether an occurrence's transfer is still on its way: made, not yet charged and completed (or
 * failed). A transfer completed, and later cancelled or expired, was sent.
 */
function sending(occurrence: ScheduleOccurrence): boolean {
  return (
    !occurrence.transferId ||
    occurrence.transferStatus === TransferStatus.PENDING ||
    occurrence.transferStatus === TransferStatus.PROCESSING
  );
}

function OccurrenceRow({ occurrence }: { occurrence: ScheduleOccurrence }) {
  // A transfer that failed (a declined card) carries its reason, as one never made does.
  const failed = Boolean(occurrence.failureReason) || occurrence.transferStatus === TransferStatus.FAILED;
  return (
    <li className="flex items-start gap-2">
      {failed ? (
        <CircleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-red-600 dark:text-red-400" />
      ) : (
        <CircleCheck aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-emerald-600 dark:text-emerald-400" />
      )}
      <span>
        <span className="font-medium">{formatDay(occurrence.date)}</span>
        {failed ? (
          <span className="text-red-700 dark:text-red-300"> · Failed: {occurrence.failureReason || "The payment did not go through."}</span>
        ) : sending(occurrence) ? (
          <span className="text-slate-600 dark:text-slate-400"> · Sending…</span>
        ) : (
          <span className="text-slate-600 dark:text-slate-400"> · Sent, reference {occurrence.transferId.slice(0, 8)}</span>
        )}
      </span>
    </li>
  );
}

function DeleteScheduleDialog({ deleting, onClose }: { deleting?: Deleting; onClose: () => void }) {
  const remove = useDeleteSchedule();
  const schedule = deleting?.schedule;
  // Back to the schedule's Delete button; once it is deleted, to the section's title.
  const focusReturn = useReturnFocus(deleting?.returnFocus, () => document.getElementById("scheduled-sends-title"));

  const onDelete = async () => {
    if (!schedule) return;
    try {
      await remove.mutateAsync({ scheduleId: schedule.id });
      toast.success(SCHEDULE_MESSAGES.deleted, { description: `Nothing more goes to ${schedule.recipientName} on this schedule.` });
    } catch (error) {
      // Already gone (another tab deleted it): the list refreshes either way.
      if (!hasCode(error, Code.NotFound)) {
        toast.error(SCHEDULE_MESSAGES.actionFailed, { description: errorMessage(error, SCHEDULE_MESSAGES.actionFailedFallback) });
      }
    }
    onClose();
  };

  return (
    <AlertDialog.Root open={Boolean(schedule)} onOpenChange={(open) => !open && !remove.isPending && onClose()}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-slate-950/50" />
        <AlertDialog.Content
          {...focusReturn}
          className="fixed left-1/2 top-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-xl border border-slate-200 bg-white p-6 shadow-xl dark:border-slate-800 dark:bg-slate-900"
        >
          <AlertDialog.Title className="text-lg font-semibold">Delete scheduled send</AlertDialog.Title>
          <AlertDialog.Description className="mt-2 text-sm text-slate-600 dark:text-slate-400">
            Are you sure you want to delete this scheduled send? No more money goes out on it; the transfers it already made stay in
            your history.
          </AlertDialog.Description>
          {schedule && (
            <div className="mt-4 rounded-lg bg-slate-50 p-3 dark:bg-slate-800/60">
              <p className="font-medium">{scheduleName(schedule)}</p>
              {schedule.nextDate && schedule.state === ScheduleState.ACTIVE && (
                <p className="text-sm text-slate-600 dark:text-slate-400">Next send {formatDay(schedule.nextDate)}</p>
              )}
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
