import { X } from "lucide-react";
import { Dialog as DialogPrimitive } from "radix-ui";
import { useRef } from "react";
import type { ReactNode } from "react";
import { cn } from "@/lib/cn";

export const Dialog = DialogPrimitive.Root;

interface DialogContentProps {
  title: string;
  /** A line under the title; it also becomes the dialog's accessible description. */
  description?: ReactNode;
  children: ReactNode;
  className?: string;
  /**
   * Where focus goes back to on close. Default: what had focus when the dialog opened (a
   * dialog opened from a menu item should pass the menu's button instead).
   */
  returnFocus?: HTMLElement | null;
}

/**
 * A centred modal (Radix Dialog): focus is trapped inside, Escape and the close button dismiss
 * it and focus returns to what opened it.
 */
export function DialogContent({ title, description, children, className, returnFocus }: DialogContentProps) {
  // Taken when the content opens, not when this component first renders: a controlled dialog
  // (the transaction details of the history and the dashboard) renders it while closed too, so
  // a value taken at render was whatever had focus when the page loaded (its body), and Escape
  // left the keyboard user at the top of the page instead of on the row they opened.
  const openedFrom = useRef<HTMLElement | null>(null);
  return (
    <DialogPrimitive.Portal>
      <DialogPrimitive.Overlay className="fixed inset-0 z-40 bg-slate-950/50" />
      <DialogPrimitive.Content
        {...(description ? {} : { "aria-describedby": undefined })}
        onOpenAutoFocus={() => {
          openedFrom.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
        }}
        onCloseAutoFocus={(event) => restoreFocus(event, returnFocus ?? openedFrom.current)}
        className={cn(
          "fixed left-1/2 top-1/2 z-50 max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 overflow-y-auto",
          "rounded-xl border border-slate-200 bg-white p-6 shadow-xl dark:border-slate-800 dark:bg-slate-900",
          className,
        )}
      >
        <div className="pr-8">
          <DialogPrimitive.Title className="text-lg font-semibold text-slate-900 dark:text-white">{title}</DialogPrimitive.Title>
          {description && (
            <DialogPrimitive.Description className="mt-1 text-sm text-slate-600 dark:text-slate-400">
              {description}
            </DialogPrimitive.Description>
          )}
        </div>
        <DialogPrimitive.Close
          aria-label="Close"
          className="absolute right-4 top-4 inline-flex size-8 items-center justify-center rounded-md text-slate-500 hover:bg-slate-100 hover:text-slate-800 dark:hover:bg-slate-800 dark:hover:text-slate-200"
        >
          <X aria-hidden="true" className="size-4" />
        </DialogPrimitive.Close>
        <div className="mt-5">{children}</div>
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}

/** Focuses `target` instead of Radix's default (the Dialog.Trigger, which controlled dialogs lack). */
export function restoreFocus(event: Event, target: HTMLElement | null | undefined): void {
  if (target?.isConnected) {
    event.preventDefault();
    target.focus();
  }
}
