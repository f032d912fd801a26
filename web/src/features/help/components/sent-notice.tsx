import { CircleCheck } from "lucide-react";

/**
 * The ticket of the message just sent, kept on the page after the toast has gone so that the
 * sender can note it. The live region is always present, so screen readers announce it.
 */
export function SentNotice({ ticket }: { ticket: string | undefined }) {
  return (
    <div role="status" aria-live="polite" className={ticket ? undefined : "hidden"}>
      {ticket && (
        <p className="flex items-start gap-2 rounded-lg border border-emerald-200 bg-emerald-50 px-3 py-2.5 text-sm text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950/60 dark:text-emerald-200">
          <CircleCheck aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
          <span>
            Your message was sent. Your reference is <strong className="font-mono tracking-wide">{ticket}</strong>.
          </span>
        </p>
      )}
    </div>
  );
}
