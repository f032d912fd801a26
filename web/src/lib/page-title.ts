import { useEffect, useSyncExternalStore } from "react";

/**
 * A page's own title for the browser tab, over its route's `handle.title`: for a page whose
 * title depends on what it shows (an article's title, or "Page not found" for an id that does
 * not exist). The root layout reads it (usePageTitleOverride); a page sets it with usePageTitle
 * while it is shown.
 */
let override: string | undefined;
const listeners = new Set<() => void>();

function set(next: string | undefined) {
  if (override === next) return;
  override = next;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Sets the tab's title while the calling page is shown. */
export function usePageTitle(title: string | undefined) {
  useEffect(() => {
    set(title);
    return () => set(undefined);
  }, [title]);
}

/** The title a shown page set, if any. */
export function usePageTitleOverride(): string | undefined {
  return useSyncExternalStore(subscribe, () => override);
}
