/**
 * Facts about Thumela the company, shown in the footer and on the public pages. One place, so
 * the footer, the contact page and the legal pages never disagree.
 */
export const COMPANY = {
  legalName: "Thumela (Pty) Ltd",
  registrationNumber: "2024/512847/07",
  supportEmail: "support@thumela.co.za",
  privacyEmail: "privacy@thumela.co.za",
  securityEmail: "security@thumela.co.za",
  accessibilityEmail: "accessibility@thumela.co.za",
  pressEmail: "press@thumela.co.za",
  careersEmail: "careers@thumela.co.za",
  complianceEmail: "compliance@thumela.co.za",
  /** Toll-free from South African landlines and mobiles: 0800 THUMELA on a phone keypad (0800 848 635). */
  phoneDisplay: "0800 848 635",
  phoneWord: "0800 THUMELA",
  phoneHref: "tel:+27800848635",
  addressLines: ["3rd Floor, Thumela House", "41 Juta Street, Braamfontein", "Johannesburg, 2001", "South Africa"],
  informationOfficer: "Nomvula Khumalo",
} as const;

/** The date on every legal document (Help Center → Documents shows the same). */
export const DOCUMENTS_LAST_UPDATED = "April 1, 2025";

/** The spec's support hours. */
export const SUPPORT_HOURS = {
  always: "24/7 support",
  weekdays: "Monday to Friday 8:00-18:00",
  saturday: "Saturday 9:00-14:00",
} as const;

/** Banks whose ATMs pay out Thumela vouchers, and the accepted card brands. */
export const PARTNER_BANKS = ["Standard Bank", "ABSA", "FNB", "Nedbank", "Capitec"] as const;
export const CARD_BRANDS = ["Visa", "Mastercard"] as const;
