import { useEffect } from "react";
import { useLocation } from "react-router";
import { installAnalytics, track } from "./analytics";

let lastPageViewKey: string | undefined;

/**
 * Records a manual `$pageview` on every route change (the spec: page-view capture off, manual
 * page views on route changes) and installs the page-lifetime listeners once. Used by the root
 * layout, after the document title is set, so the event carries the new page's title.
 */
export function useAnalyticsPageViews(): void {
  const location = useLocation();
  useEffect(() => {
    installAnalytics();
  }, []);
  useEffect(() => {
    // React's development double effects re-run with the same location key: count it once.
    const key = `${location.key}|${location.pathname}${location.search}`;
    if (key === lastPageViewKey) return;
    lastPageViewKey = key;
    track("$pageview", { path: location.pathname, title: typeof document === "undefined" ? undefined : document.title });
  }, [location.key, location.pathname, location.search]);
}

/** Forgets the last page view (tests that render the app more than once). */
export function resetPageViewTracking(): void {
  lastPageViewKey = undefined;
}
