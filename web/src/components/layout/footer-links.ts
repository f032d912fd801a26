/** The public footer's link columns and bottom links (the spec's public shell). */
export interface FooterLink {
  to: string;
  label: string;
}

export const FOOTER_COLUMNS: ReadonlyArray<{ title: string; links: readonly FooterLink[] }> = [
  {
    title: "Company",
    links: [
      { to: "/about", label: "About" },
      { to: "/careers", label: "Careers" },
      { to: "/press", label: "Press" },
      { to: "/blog", label: "Blog" },
    ],
  },
  {
    title: "Legal",
    links: [
      { to: "/privacy", label: "Privacy" },
      { to: "/terms", label: "Terms" },
      { to: "/compliance", label: "Compliance" },
      { to: "/security", label: "Security" },
      { to: "/cookies", label: "Cookies" },
    ],
  },
  {
    title: "Help",
    links: [
      { to: "/help", label: "Help Center" },
      { to: "/contact", label: "Contact" },
      { to: "/faq", label: "FAQ" },
      { to: "/support", label: "Support" },
      { to: "/feedback", label: "Feedback" },
    ],
  },
];

export const FOOTER_BOTTOM_LINKS: readonly FooterLink[] = [
  { to: "/accessibility", label: "Accessibility" },
  { to: "/sitemap", label: "Sitemap" },
  { to: "/responsible-disclosure", label: "Responsible Disclosure" },
];

/** Every path the footer links to (the browser tests visit each). */
export const FOOTER_PATHS: readonly string[] = [
  ...FOOTER_COLUMNS.flatMap((column) => column.links.map((link) => link.to)),
  ...FOOTER_BOTTOM_LINKS.map((link) => link.to),
];

/** The public header's page links (desktop bar and mobile menu). */
export const HEADER_LINKS: readonly FooterLink[] = [
  { to: "/about", label: "About" },
  { to: "/fees", label: "Fees" },
  { to: "/blog", label: "Blog" },
  { to: "/faq", label: "FAQ" },
  { to: "/support", label: "Support" },
];
