import { Check } from "lucide-react";
import { cn } from "@/lib/cn";
import { WIZARD_STEPS } from "../../api/send-money";
import type { WizardStep } from "../../api/send-money";

/** The four steps (amount, recipient, payment, confirmation); the current one is marked. */
export function StepIndicator({ current }: { current: WizardStep }) {
  return (
    <ol aria-label="Send money steps" className="flex items-center gap-2 sm:gap-3">
      {WIZARD_STEPS.map((step, index) => {
        const number = index + 1;
        const done = number < current;
        const active = number === current;
        return (
          <li
            key={step.id}
            aria-current={active ? "step" : undefined}
            className="flex flex-1 items-center gap-2 last:flex-none sm:gap-3"
          >
            <span
              className={cn(
                "flex size-8 shrink-0 items-center justify-center rounded-full text-sm font-semibold",
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
                active ? "text-slate-900 dark:text-white" : "hidden text-slate-500 sm:inline dark:text-slate-400",
              )}
            >
              <span className="sr-only">
                Step {number} of {WIZARD_STEPS.length}:{" "}
              </span>
              {step.label}
              {done && <span className="sr-only"> (done)</span>}
            </span>
            {number < WIZARD_STEPS.length && (
              <span aria-hidden="true" className="h-px flex-1 bg-slate-200 dark:bg-slate-700" />
            )}
          </li>
        );
      })}
    </ol>
  );
}
