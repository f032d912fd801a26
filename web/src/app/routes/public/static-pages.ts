/** The public static pages of the route table, with their headings. */
export const STATIC_PAGES = [
  { path: "/about", title: "About" },
  { path: "/careers", title: "Careers" },
  { path: "/press", title: "Press" },
  { path: "/blog", title: "Blog" },
  { path: "/privacy", title: "Privacy Policy" },
  { path: "/terms", title: "Terms of Service" },
  { path: "/compliance", title: "Compliance" },
  { path: "/security", title: "Security" },
  { path: "/cookies", title: "Cookie Policy" },
  { path: "/contact", title: "Contact" },
  { path: "/faq", title: "FAQ" },
  { path: "/support", title: "Support" },
  { path: "/feedback", title: "Feedback" },
  { path: "/accessibility", title: "Accessibility" },
  { path: "/sitemap", title: "Sitemap" },
  { path: "/responsible-disclosure", title: "Responsible Disclosure" },
] as const;
