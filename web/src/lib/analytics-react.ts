import { useEffect } from "react";
import { useLocation } from "react-router";
import { installAnalytics, track } from "./analytics";

let lastPageViewPath: string | undefined;

/**
 * Records a manual `$pageview` on every route change (the spec: page-view capture off, manual
 * page views on route changes) and installs the page-lifetime listeners once. Used by the root
 * layout, after the document title is set, so the event carries the new page's title.
 *
 * A route change is a change of path. A change of the query alone stays on the page: the
 * send-money wizard's steps (`?step=2`, entries in the browser's history so that Back moves
 * between them) would otherwise count /send-money once per step and per Back, and the wizard's
 * own `transaction_step_completed` is its funnel.
 */
export function useAnalyticsPageViews(): void {
  const location = useLocation();
  useEffect(() => {
    installAnalytics();
  }, []);
  useEffect(() => {
    // React's development double effects re-run on the same path: it is counted once.
    if (location.pathname === lastPageViewPath) return;
    lastPageViewPath = location.pathname;
    track("$pageview", { path: location.pathname, title: typeof document === "undefined" ? undefined : document.title });
  }, [location.pathname]);
}

/** Forgets the last page view (tests that render the app more than once). */
export function resetPageViewTracking(): void {
  lastPageViewPath = undefined;
}
