import { track } from "@/lib/analytics";

export const LANDING_PAGE_VERSION = "1.0";
const VIEWED_KEY = "thumela_landing_viewed";
let viewedInMemory = false;

/**
 * landing_page_viewed once per visit: the first time the landing page shows in this tab's
 * session (sessionStorage), with the referrer (or 'direct') and the page version.
 */
export function trackLandingPageViewOnce(): void {
  try {
    if (window.sessionStorage.getItem(VIEWED_KEY)) return;
    window.sessionStorage.setItem(VIEWED_KEY, "1");
  } catch {
    // Storage blocked: count this view; React's double effects are absorbed below.
    if (viewedInMemory) return;
  }
  viewedInMemory = true;
  track("landing_page_viewed", {
    referrer: document.referrer || "direct",
    landing_page_version: LANDING_PAGE_VERSION,
  });
}
/** clicked_features_section: a click anywhere in the features (how it works) section. */
export function trackFeaturesSectionClick(): void {
  track("clicked_features_section");
}
