import { useSyncExternalStore } from "react";

/** Below 768 px (Tailwind's md): the phone layout, the header's menu button instead of the sidebar. */
export const NARROW_QUERY = "(max-width: 767.98px)";

/** Where toasts show on a wide screen: bottom right, off the sticky header and the outage banner under it. */
export const TOAST_POSITION = "bottom-right";

/** Where toasts show on a narrow screen: at the top, off the actions at the bottom of the screen. */
export const TOAST_POSITION_NARROW = "top-center";

export type ToastPosition = typeof TOAST_POSITION | typeof TOAST_POSITION_NARROW;

/** The header's height (h-16) and a gap: a narrow screen's toasts show under it. */
const UNDER_THE_HEADER = "72px";

/** A dialog's overlay covers the header: its toasts keep a small gap from the top. */
const OVER_A_DIALOG = "16px";

/** Where the toaster puts its toasts and how far from the top of the screen. */
export interface ToastPlacement {
  position: ToastPosition;
  /** The gap above them on a narrow screen; undefined takes sonner's own. */
  top?: string;
}

/** An open Radix Dialog or AlertDialog (the app's dialogs, the mobile menu, confirmations). */
const OPEN_DIALOG = '[role="dialog"][data-state="open"], [role="alertdialog"][data-state="open"]';

function subscribeNarrow(onChange: () => void): () => void {
  if (typeof window.matchMedia !== "function") return () => {};
  const query = window.matchMedia(NARROW_QUERY);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
}

function isNarrow(): boolean {
  return typeof window.matchMedia === "function" && window.matchMedia(NARROW_QUERY).matches;
}

/** Dialogs open and close by Radix adding its portal and setting data-state. */
function subscribeDialogs(onChange: () => void): () => void {
  const observer = new MutationObserver(onChange);
  observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-state", "role"] });
  return () => observer.disconnect();
}

function isDialogOpen(): boolean {
  return document.querySelector(OPEN_DIALOG) !== null;
}

const subscribeNothing = () => () => {};
const closed = () => false;

/**
 * Where the toaster puts its toasts. On a wide screen at the bottom right, the top being the
 * sticky header's (its menu, theme toggle, account menu and sign-out) and the outage banner's.
 * Below 768 px the bottom of the screen holds what a phone's thumb presses next: the result
 * panel's "Back to Dashboard" and "Send Another Transfer" as the "Transfer initiated" toast
 * arrives, a dialog's Send Similar, Save or Cancel voucher. A toast there covered them for its
 * four seconds. So on a narrow screen toasts show at the top, under the sticky header so that its
 * menu stays usable, or near the top edge while a dialog is open (its overlay covers the header).
 * Dialogs are watched only on a narrow screen.
 */
export function useToastPlacement(): ToastPlacement {
  const narrow = useSyncExternalStore(subscribeNarrow, isNarrow, () => false);
  const dialog = useSyncExternalStore(narrow ? subscribeDialogs : subscribeNothing, narrow ? isDialogOpen : closed, closed);
  if (!narrow) return { position: TOAST_POSITION };
  return { position: TOAST_POSITION_NARROW, top: dialog ? OVER_A_DIALOG : UNDER_THE_HEADER };
}
