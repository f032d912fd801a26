import type { FocusEvent, ReactNode } from "react";

/**
 * Keeps sonner (2.0.8) from sending the keyboard back: when the focus leaves its toasts, sonner
 * moves it to wherever it was before it entered them, and does the same when the last toast
 * closes. A keyboard user who Tabs into a toast (its close button) and on past it lands where
 * they came from, and Tabs into the toast again: a trap for as long as a toast is shown (WCAG
 * 2.1.2), with no option to turn it off. The boundary stops the toaster's focus events in the
 * capture phase, before sonner's handlers see them, so the toasts are ordinary content at the end
 * of the page's tab order; sonner's Alt+T (to reach them) and Escape still work.
 */
export function ToastFocusBoundary({ children }: { children: ReactNode }) {
  const stop = (event: FocusEvent) => event.stopPropagation();
  return (
    <div className="contents" onFocusCapture={stop} onBlurCapture={stop}>
      {children}
    </div>
  );
}
