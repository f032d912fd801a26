import { VOUCHER_VALID_DAYS } from "@/lib/voucher";
import { PLATFORM_FEE_TEXT } from "@/lib/fee-schedule";

export type ArticleArt = "voucher" | "shield" | "gift" | "gauge" | "home";

export interface Article {
  /** The URL slug: /blog/{id}. */
  id: string;
  title: string;
  excerpt: string;
  /** ISO date (yyyy-mm-dd). */
  date: string;
  author: string;
  authorRole: string;
  /** Which inline illustration heads the article. */
  art: ArticleArt;
  /** What the illustration shows, for screen readers. */
  artLabel: string;
  /** Sections: an optional sub-heading and paragraphs. */
  body: ReadonlyArray<{ heading?: string; paragraphs: readonly string[] }>;
}

/** Thumela's blog, newest first. */
export const ARTICLES: readonly Article[] = [
  {
    id: "how-atm-cash-send-works",
    title: "How ATM cash send works: from your card to their hand",
    excerpt:
      "What actually happens between pressing Send Money and your recipient walking away from the ATM with cash.",
    date: "2025-03-24",
    author: "Lerato Mahlangu",
    authorRole: "Product Manager",
    art: "voucher",
    artLabel: "A phone showing an SMS with a voucher number next to an ATM",
    body: [
      {
        paragraphs: [
          "Cash send is one of South Africa's quiet success stories: the big banks have let people withdraw money at an ATM without a card for years. Thumela puts that service behind a simple app, so you can pay with any Visa or Mastercard and choose which bank's ATM your recipient will use.",
        ],
      },
      {
        heading: "1. You pay with your card",
        paragraphs: [
          "When you press Send Money, we charge the amount plus the fee to your saved card. The quote you saw on the confirmation step is exactly what is charged: the bank's cash-send fee plus our " +
            PLATFORM_FEE_TEXT +
            " platform fee, or nothing at all on your first transfer.",
        ],
      },
      {
        heading: "2. We issue a voucher",
        paragraphs: [
          "Once the card payment succeeds, the transfer shows Completed and a voucher is issued: a 10-digit voucher number and a 4-digit PIN. We send both to your recipient's phone by SMS. You never see the PIN, so nobody can ask you for it.",
        ],
      },
      {
        heading: "3. They withdraw at the ATM",
        paragraphs: [
          "At an ATM of the bank you chose, your recipient selects the cash-send or instant-money option (each bank names it slightly differently), enters their phone number, the voucher number and the PIN, and takes the cash.",
          `The voucher is valid for ${VOUCHER_VALID_DAYS} days. If it is not collected, it expires and we refund the full amount, fee included, to your card. You can also cancel an unclaimed voucher at any time for a full refund.`,
        ],
      },
    ],
  },
  {
    id: "spot-a-voucher-scam",
    title: "Five signs of a cash voucher scam",
    excerpt:
      "Scammers love cash vouchers because they are fast. Here is how to recognise the tricks before you lose money.",
    date: "2025-03-10",
    author: "Pieter van Wyk",
    authorRole: "Head of Fraud Prevention",
    art: "shield",
    artLabel: "A shield with a tick in front of a phone",
    body: [
      {
        paragraphs: [
          "Every week our fraud team speaks to people who were talked into sending money to a stranger. The stories differ, but the signs are always the same.",
        ],
      },
      {
        heading: "The five signs",
        paragraphs: [
          "1. Someone asks you for a voucher PIN. Thumela sends the PIN only to the recipient. Anyone asking you for it, even “from Thumela” or “from the bank”, is a scammer.",
          "2. You are rushed. “Send it in the next ten minutes or the deal is off” is pressure, not business.",
          "3. You are paying to receive money. Real prizes, loans and jobs never ask for a fee up front by cash voucher.",
          "4. The person can't meet you or speak on a video call, but needs money urgently. This is the classic romance and “stuck relative” scam.",
          "5. You are asked to send to a number you don't know on behalf of someone you do. Call your friend or relative on the number you already have before you send.",
        ],
      },
      {
        heading: "If you think you've been scammed",
        paragraphs: [
          "Cancel the voucher straight away from your transaction history if it has not been collected yet: you get a full refund. Then call us and report the matter to the SAPS. We will never ask for your password, one-time code or card PIN.",
        ],
      },
    ],
  },
  {
    id: "first-transfer-free",
    title: "Your first transfer is on us",
    excerpt: "New to Thumela? Your first cash transfer carries no bank fee and no platform fee. Here's how it works.",
    date: "2025-02-03",
    author: "Thabo Sithole",
    authorRole: "Co-founder",
    art: "gift",
    artLabel: "A gift box with a rand coin",
    body: [
      {
        paragraphs: [
          "We want you to try Thumela without worrying about the cost, so the first transfer you send is completely free: no bank cash-send fee and no platform fee.",
        ],
      },
      {
        heading: "How it shows up",
        paragraphs: [
          "On your first transfer the fee summary shows the usual fee struck through and a total equal to the amount you send. Nothing else changes: the voucher, the SMS and the 7-day collection window are the same as for every transfer.",
          // "{limit:…}" tokens: the limits the server enforces, filled in on the page (LimitText).
          "The offer is for your first transfer only, whatever its amount within the normal limits of {limit:minimum} to {limit:perTransfer}. If that first transfer fails (the card is declined, for example), your next one is still free.",
        ],
      },
    ],
  },
  {
    id: "why-transfers-have-limits",
    title: "Why money transfers have limits, and what ours are",
    excerpt:
      "South African law asks payment services to know their customers and watch for abuse. Limits are part of that.",
    date: "2025-01-20",
    author: "Ayesha Patel",
    authorRole: "Compliance Officer",
    art: "gauge",
    artLabel: "A gauge with its needle in the green zone",
    body: [
      {
        paragraphs: [
          "The Financial Intelligence Centre Act (FICA) requires services like Thumela to know who their customers are and to watch for money laundering and the financing of terrorism. Transfer limits keep everyday remittances simple while making abuse harder.",
        ],
      },
      {
        heading: "Our limits",
        paragraphs: [
          `Each transfer must be at least {limit:minimum} and at most {limit:perTransfer}. Across all your transfers you can send up to {limit:perDay} per day, {limit:perMonth} per calendar month and {limit:perYear} per calendar year. Days, months and years follow South African time, and fees do not count towards the limits.`,
          "If a transfer would go over a limit, Thumela tells you which limit and how much you can still send, before anything is charged.",
        ],
      },
      {
        heading: "What counts",
        paragraphs: [
          "Every transfer counts unless it failed or was refunded. Cancelling an unclaimed voucher refunds it, so it no longer counts towards your limits.",
        ],
      },
    ],
  },
  {
    id: "sending-money-home-for-the-holidays",
    title: "Sending money home for the festive season",
    excerpt: "December is the busiest month for sending money. A few tips so your family gets their cash in time.",
    date: "2024-12-02",
    author: "Lerato Mahlangu",
    authorRole: "Product Manager",
    art: "home",
    artLabel: "A house with a heart above the roof",
    body: [
      {
        paragraphs: [
          "In December many of us send money home for food, school uniforms and travel. ATMs are busy and queues are long, so a little planning helps.",
        ],
      },
      {
        heading: "Tips for the season",
        paragraphs: [
          "Choose the bank your recipient can reach most easily. A Capitec or FNB ATM in the local shopping centre may be closer than a branch in town.",
          "Check the phone number twice. The voucher goes by SMS to that number; if it is wrong, cancel the voucher and send again.",
          "Send a few days early. Vouchers stay valid for 7 days, so your family can collect when the queues are short.",
          "Remember the monthly limit. With many transfers in December, keep the monthly limit in mind; the app shows you how much room you have left.",
        ],
      },
    ],
  },
];

export function findArticle(id: string): Article | undefined {
  return ARTICLES.find((article) => article.id === id);
}

const dateFormat = new Intl.DateTimeFormat("en-ZA", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

/** "24 March 2025" for "2025-03-24". */
export function formatArticleDate(iso: string): string {
  return dateFormat.format(new Date(`${iso}T00:00:00Z`));
}
