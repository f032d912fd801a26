import type { ComponentType } from "react";

export interface StaticPageEntry {
  path: string;
  /** The page's h1 and browser-tab title. */
  title: string;
  /** The page's own code, downloaded on first visit (one chunk per page). */
  load: () => Promise<{ default: ComponentType }>;
}

/**
 * The public static pages of the route table, with their headings. router.tsx registers each
 * path; static-page.tsx shows the page's component. /fees (the fee schedule the Help Center's
 * Documents tab opens) is Thumela's addition to the spec's list.
 */
export const STATIC_PAGES: readonly StaticPageEntry[] = [
  { path: "/about", title: "About", load: () => import("@/features/marketing/components/about-page") },
  { path: "/careers", title: "Careers", load: () => import("@/features/marketing/components/careers-page") },
  { path: "/press", title: "Press", load: () => import("@/features/marketing/components/press-page") },
  { path: "/blog", title: "Blog", load: () => import("@/features/blog/components/blog-page") },
  { path: "/privacy", title: "Privacy Policy", load: () => import("@/features/legal/components/privacy-page") },
  { path: "/terms", title: "Terms of Service", load: () => import("@/features/legal/components/terms-page") },
  { path: "/compliance", title: "Compliance", load: () => import("@/features/legal/components/compliance-page") },
  { path: "/security", title: "Security", load: () => import("@/features/legal/components/security-page") },
  { path: "/cookies", title: "Cookie Policy", load: () => import("@/features/legal/components/cookies-page") },
  { path: "/fees", title: "Fee Schedule", load: () => import("@/features/legal/components/fees-page") },
  { path: "/contact", title: "Contact", load: () => import("@/features/help/components/contact-page") },
  { path: "/faq", title: "FAQ", load: () => import("@/features/help/components/faq-page") },
  { path: "/support", title: "Support", load: () => import("@/features/help/components/support-page") },
  { path: "/feedback", title: "Feedback", load: () => import("@/features/help/components/feedback-page") },
  { path: "/accessibility", title: "Accessibility", load: () => import("@/features/legal/components/accessibility-page") },
  { path: "/sitemap", title: "Sitemap", load: () => import("./sitemap") },
  {
    path: "/responsible-disclosure",
    title: "Responsible Disclosure",
    load: () => import("@/features/legal/components/responsible-disclosure-page"),
  },
];
