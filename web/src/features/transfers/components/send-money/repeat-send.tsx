import { Repeat } from "lucide-react";
import { FieldError } from "@/components/ui/field-error";
import { Input, Label } from "@/components/ui/input";
import { ScheduleFrequency } from "@/gen/thumela/bff/v1/bff_pb";
import { cn } from "@/lib/cn";
import { formatDay, saToday } from "@/lib/date";
import { FREQUENCY_WORDS, nextPeriod } from "@/lib/schedules";

/** The sender's 'Repeat this send' choice on the confirmation step. */
export interface RepeatChoice {
  on: boolean;
  frequency: ScheduleFrequency.WEEKLY | ScheduleFrequency.MONTHLY;
  /** "YYYY-MM-DD", or "" for no end. */
  endDate: string;
}

export const NO_REPEAT: RepeatChoice = { on: false, frequency: ScheduleFrequency.WEEKLY, endDate: "" };

export const REPEAT_MESSAGES = {
  endBeforeStart: "The end date can't be before the next send.",
  created: "Repeat set up",
  failed: "The repeat wasn't set up",
  failedFallback: "Your transfer went out, but we couldn't schedule the next ones. You can schedule them from Recipients.",
} as const;

/**
 * When the repeat's first send goes: one period after today (South African date); today's
 * send is the transfer being made now.
 */
export function repeatStart(frequency: ScheduleFrequency, today = saToday()): string {
  return nextPeriod(today, frequency);
}

/** Why the choice cannot be used; undefined when it can (or is off). */
export function repeatProblem(choice: RepeatChoice, today = saToday()): string | undefined {
  if (!choice.on || !choice.endDate) return undefined;
  return choice.endDate < repeatStart(choice.frequency, today) ? REPEAT_MESSAGES.endBeforeStart : undefined;
}

/**
 * 'Repeat this send': after the transfer is made, the wizard schedules the same send weekly or
 * monthly (an optional end date), starting one period from today.
 */
export function RepeatSendOption({ value, onChange, recipientName }: { value: RepeatChoice; onChange: (next: RepeatChoice) => void; recipientName: string }) {
  const start = repeatStart(value.frequency);
  const problem = repeatProblem(value);
  const who = recipientName.trim() || "the recipient";
  return (
    <section aria-labelledby="repeat-send-title" className="mt-4 rounded-lg border border-slate-200 p-4 dark:border-slate-700">
      <h3 id="repeat-send-title" className="sr-only">
        Repeat this send
      </h3>
      <div className="flex items-center gap-3">
        <input
          id="repeat-send"
          type="checkbox"
          className="size-4 shrink-0 accent-brand-700"
          checked={value.on}
          onChange={(event) => onChange({ ...value, on: event.target.checked })}
          aria-describedby="repeat-send-hint"
        />
        <label htmlFor="repeat-send" className="flex items-center gap-2 text-sm font-semibold">
          <Repeat aria-hidden="true" className="size-4 text-brand-700 dark:text-brand-400" />
          Repeat this send
        </label>
      </div>
      <p id="repeat-send-hint" className="mt-1 pl-7 text-sm text-slate-600 dark:text-slate-400">
        {value.on
          ? `Today's send is this one; the next goes to ${who} on ${formatDay(start)}, then ${FREQUENCY_WORDS[value.frequency]}.`
          : `Send the same amount to ${who} every week or every month.`}
      </p>
      {value.on && (
        <div className="mt-3 grid gap-4 pl-7 sm:grid-cols-2">
          <fieldset>
            <legend className="mb-1.5 block text-sm font-medium text-slate-700 dark:text-slate-200">How often</legend>
            <div className="grid grid-cols-2 gap-2">
              {([ScheduleFrequency.WEEKLY, ScheduleFrequency.MONTHLY] as const).map((frequency) => (
                <label
                  key={frequency}
                  className={cn(
                    "flex h-11 cursor-pointer items-center justify-center gap-2 rounded-lg border text-sm font-medium",
                    value.frequency === frequency
                      ? "border-brand-600 bg-brand-50 text-brand-900 dark:border-brand-400 dark:bg-brand-950 dark:text-brand-100"
                      : "border-slate-300 dark:border-slate-700",
                  )}
                >
                  <input
                    type="radio"
                    name="repeat-frequency"
                    className="accent-brand-700"
                    checked={value.frequency === frequency}
                    onChange={() => onChange({ ...value, frequency })}
                  />
                  {frequency === ScheduleFrequency.WEEKLY ? "Weekly" : "Monthly"}
                </label>
              ))}
            </div>
          </fieldset>
          <div>
            <Label htmlFor="repeat-end">End date (optional)</Label>
            <Input
              id="repeat-end"
              type="date"
              min={start}
              value={value.endDate}
              onChange={(event) => onChange({ ...value, endDate: event.target.value })}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? "repeat-end-error" : undefined}
            />
            <FieldError id="repeat-end-error" message={problem} />
          </div>
        </div>
      )}
    </section>
  );
}
