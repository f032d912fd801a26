import { useRef } from "react";
import { useEffectOnChange } from "@/lib/use-effect-on-change";

/**
 * Keeps the keyboard focus when a section swaps its button for a form and back ('Edit Profile',
 * 'Change Password'): the button goes as the form opens, and the form goes on Cancel or after a
 * save, each taking the focus with it to the page's body, so the next Tab started over at "Skip
 * to content". Opening focuses the form's first field, closing the button again; only when the
 * focus was lost, never taking it from anything else.
 */
export function useDisclosureFocus(open: boolean) {
  const toggleRef = useRef<HTMLButtonElement>(null);
  const regionRef = useRef<HTMLDivElement>(null);
  useEffectOnChange(() => {
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    if (open) regionRef.current?.querySelector<HTMLElement>("input, select, textarea")?.focus();
    else toggleRef.current?.focus();
  }, [open]);
  return { toggleRef, regionRef };
}
