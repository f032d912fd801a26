import { useSyncExternalStore } from "react";

/** Below 768 px (Tailwind's md): the phone layout, the header's menu button instead of the sidebar. */
export const NARROW_QUERY = "(max-width: 767.98px)";

/** Where toasts show: bottom right, off the sticky header and the outage banner under it. */
export const TOAST_POSITION = "bottom-right";

/** Where toasts show on a narrow screen while a dialog is open: above it, off its actions. */
export const TOAST_POSITION_OVER_DIALOG = "top-center";

export type ToastPosition = typeof TOAST_POSITION | typeof TOAST_POSITION_OVER_DIALOG;

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
 * Where the toaster puts its toasts. Bottom right, the top being the sticky header's (its menu,
 * theme toggle, account menu and sign-out) and the outage banner's. But on a narrow screen a
 * dialog fills the width and most of the height, its actions (Send Similar, Save, Cancel
 * voucher) at the bottom: a toast there covered them for its four seconds. While a dialog is
 * open there, toasts show at the top instead, where the header is behind the dialog's overlay
 * and cannot be used anyway. Dialogs are watched only on a narrow screen.
 */
export function useToastPosition(): ToastPosition {
  const narrow = useSyncExternalStore(subscribeNarrow, isNarrow, () => false);
  const dialog = useSyncExternalStore(narrow ? subscribeDialogs : subscribeNothing, narrow ? isDialogOpen : closed, closed);
  return narrow && dialog ? TOAST_POSITION_OVER_DIALOG : TOAST_POSITION;
}
