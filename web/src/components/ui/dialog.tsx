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
 * it and focus returns to what opened it. An inline part that Escape should close first (a form
 * opened inside the dialog) carries `data-handles-escape` and handles the key itself: the
 * dialog then stays open.
 */
export function DialogContent({ title, description, children, className, returnFocus }: DialogContentProps) {
  const focusReturn = useReturnFocus(returnFocus);
  return (
    <DialogPrimitive.Portal>
      <DialogPrimitive.Overlay className="fixed inset-0 z-40 bg-slate-950/50" />
      <DialogPrimitive.Content
        {...(description ? {} : { "aria-describedby": undefined })}
        {...focusReturn}
        onEscapeKeyDown={keepOpenForInlineEscape}
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

/**
 * Where a dialog (Radix Dialog or AlertDialog; spread the result on its Content) gives the focus
 * back when it closes: `returnFocus` (a dialog opened from a menu item passes the menu's button),
 * else what had focus when it opened; `fallback()` when that is gone (the card just deleted).
 * Both are taken when the dialog opens, not later: the pages forget what is being edited or
 * deleted, and with it `returnFocus`, as the dialog closes, before Radix asks; and a controlled
 * dialog renders while closed too, so what had focus at its first render was the page's body.
 */
export function useReturnFocus(returnFocus?: HTMLElement | null, fallback?: () => HTMLElement | null) {
  const target = useRef<HTMLElement | null>(null);
  return {
    onOpenAutoFocus: () => {
      target.current = returnFocus ?? (document.activeElement instanceof HTMLElement ? document.activeElement : null);
    },
    onCloseAutoFocus: (event: Event) => restoreFocus(event, target.current?.isConnected ? target.current : fallback?.()),
  };
}

/**
 * Radix hears Escape on the document before the page does; a key pressed inside an element
 * with `data-handles-escape` is that element's to handle (it closes itself, not the dialog).
 */
function keepOpenForInlineEscape(event: KeyboardEvent): void {
  if (event.target instanceof Element && event.target.closest("[data-handles-escape]")) event.preventDefault();
}

/** Focuses `target` instead of Radix's default (the Dialog.Trigger, which controlled dialogs lack). */
export function restoreFocus(event: Event, target: HTMLElement | null | undefined): void {
  if (target?.isConnected) {
    event.preventDefault();
    target.focus();
  }
}
