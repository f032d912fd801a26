import { Check } from "lucide-react";
import { cn } from "@/lib/cn";
import { WIZARD_STEPS } from "../../api/send-money";
import type { WizardStep } from "../../api/send-money";

/**
 * The four steps (amount, recipient, payment, confirmation); the current one is marked.
 *
 * The card's width decides, not the window's (a container query): from 768 px the sidebar and,
 * from 1024 px, the Transaction Summary share the window, so a tablet's card is narrower than a
 * large phone's. Every step's name shows where all four fit (a card of 33rem or more); otherwise
 * only the current one's, which takes the room it needs first and shortens ("Confirma…") only
 * where even that does not fit, rather than widen the page.
 */
export function StepIndicator({ current }: { current: WizardStep }) {
  return (
    <div className="@container">
      <ol aria-label="Send money steps" className="flex items-center gap-1.5 @min-[20rem]:gap-2 @min-[40rem]:gap-3">
        {WIZARD_STEPS.map((step, index) => {
          const number = index + 1;
          const done = number < current;
          const active = number === current;
          return (
            <li
              key={step.id}
              aria-current={active ? "step" : undefined}
              className={cn(
                "flex min-w-0 items-center gap-1.5 @min-[20rem]:gap-2 @min-[40rem]:gap-3",
                // Where only the current step's name shows, that step is sized by its name first
                // and the others share what is left, so "Amount" is not cut to "Am…" on a phone.
                // Where every name shows, the steps share the width equally.
                number === WIZARD_STEPS.length ? "flex-initial" : active ? "flex-auto @min-[33rem]:flex-1" : "flex-1",
              )}
            >
              <span
                className={cn(
                  "flex size-7 shrink-0 items-center justify-center rounded-full text-sm font-semibold @min-[20rem]:size-8",
                  done && "bg-brand-700 text-white dark:bg-brand-600",
                  active && "bg-brand-100 text-brand-800 ring-2 ring-brand-600 dark:bg-brand-950 dark:text-brand-200",
                  !done && !active && "bg-slate-100 text-slate-500 dark:bg-slate-800 dark:text-slate-400",
                )}
              >
                {done ? <Check aria-hidden="true" className="size-4" /> : number}
              </span>
              <span
                className={cn(
                  "text-sm font-medium",
                  active
                    ? "min-w-0 truncate text-slate-900 dark:text-white"
                    : "hidden text-slate-500 @min-[33rem]:inline dark:text-slate-400",
                )}
              >
                <span className="sr-only">
                  Step {number} of {WIZARD_STEPS.length}:{" "}
                </span>
                {step.label}
                {done && <span className="sr-only"> (done)</span>}
              </span>
              {number < WIZARD_STEPS.length && (
                <span aria-hidden="true" className="h-px min-w-0 flex-1 bg-slate-200 dark:bg-slate-700" />
              )}
            </li>
          );
        })}
      </ol>
    </div>
  );
}
