import { CircleAlert } from "lucide-react";
import { cn } from "@/lib/cn";

/**
 * An inline error for a form. The live region is always in the page so that screen readers
 * announce the message the moment it appears.
 */
export function FormAlert({ id, message, className }: { id?: string; message?: string; className?: string }) {
  return (
    <div id={id} role="alert" aria-live="assertive" className={cn(!message && "hidden", className)}>
      {message && (
        <p className="flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2.5 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/60 dark:text-red-200">
          <CircleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
          <span>{message}</span>
        </p>
      )}
    </div>
  );
}
