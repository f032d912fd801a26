import { CloudOff, X } from "lucide-react";
import { PAYMENT_SYSTEM_UNREACHABLE, useServiceOutage } from "@/lib/service-outage";

/**
 * Shown below the top bar while a call has answered Unavailable and its service has not
 * answered since (lib/service-outage): the failed screen keeps its own error, and this says why
 * and that the money is safe. It goes away when the service answers again, or when dismissed.
 *
 * The live region is always there, empty when all is well: a screen reader announces what is
 * added to a region it already knows, and a dialog open at the time (the add-card form) leaves
 * an aria-live element readable where it hides the rest of the page.
 */
export function UnavailableBanner() {
  const { shown, dismiss } = useServiceOutage();
  return (
    <div
      aria-live="polite"
      role={shown ? "status" : undefined}
      className={
        shown
          ? "sticky top-16 z-20 flex items-start gap-3 border-b border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900 sm:px-6 lg:px-10 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
          : undefined
      }
    >
      {shown && (
        <>
          <CloudOff aria-hidden="true" className="mt-0.5 size-5 shrink-0" />
          <p className="flex-1">{PAYMENT_SYSTEM_UNREACHABLE}</p>
          <button
            type="button"
            aria-label="Dismiss"
            onClick={dismiss}
            className="-my-1 inline-flex size-8 shrink-0 items-center justify-center rounded-md text-amber-800 hover:bg-amber-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500 dark:text-amber-200 dark:hover:bg-amber-900"
          >
            <X aria-hidden="true" className="size-4" />
          </button>
        </>
      )}
    </div>
  );
}
