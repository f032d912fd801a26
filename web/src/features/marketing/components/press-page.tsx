import { Download } from "lucide-react";
import { PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { COMPANY } from "@/lib/site";

const RELEASES = [
  {
    date: "March 18, 2025",
    title: "Thumela adds Capitec ATMs: cash vouchers now collectable at all five major banks",
    text: "Recipients can now withdraw Thumela vouchers at Standard Bank, ABSA, FNB, Nedbank and Capitec ATMs.",
  },
  {
    date: "February 3, 2025",
    title: "First transfer free for every new Thumela customer",
    text: "New senders pay no bank fee and no platform fee on their first cash transfer.",
  },
  {
    date: "November 12, 2024",
    title: "Thumela launches card-to-cash transfers in South Africa",
    text: "A Johannesburg start-up lets anyone with a Visa or Mastercard send cash to a phone number, collected at an ATM.",
  },
];

const FACTS = [
  ["Founded", "2024, Johannesburg"],
  ["What we do", "Card-funded cash transfers, collected at ATMs with an SMS voucher"],
  ["Partner ATMs", "Standard Bank, ABSA, FNB, Nedbank, Capitec"],
  ["Pricing", "The recipient bank's cash-send fee plus 0.3%; first transfer free"],
  ["Regulation", "Accountable institution under FICA; POPIA responsible party"],
];

export default function PressPage() {
  return (
    <PublicPage title="Press" lead="News, facts and brand material for journalists writing about Thumela.">
      <PageSection title="Press releases">
        <ol className="space-y-5">
          {RELEASES.map((release) => (
            <li key={release.title} className="border-l-2 border-brand-600 pl-4">
              <p className="text-sm text-slate-600 dark:text-slate-400">
                <time>{release.date}</time>
              </p>
              <h3 className="font-semibold text-slate-900 dark:text-white">{release.title}</h3>
              <p className="mt-1 text-sm">{release.text}</p>
            </li>
          ))}
        </ol>
      </PageSection>
      <PageSection title="Fact sheet">
        <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-[10rem_1fr]">
          {FACTS.map(([term, detail]) => (
            <div key={term} className="contents">
              <dt className="font-medium text-slate-900 dark:text-white">{term}</dt>
              <dd>{detail}</dd>
            </div>
          ))}
        </dl>
      </PageSection>
      <PageSection title="Brand">
        <p>
          Our word mark is “Thumela” with the send-arrow symbol, in our deep green. Please don't recolour or stretch it.
          The logo is available as an SVG:
        </p>
        <a href="/favicon.svg" download="thumela-symbol.svg" className={`inline-flex items-center gap-2 ${proseLink}`}>
          <Download aria-hidden="true" className="size-4" />
          Download the Thumela symbol (SVG)
        </a>
      </PageSection>
      <PageSection title="Media contact">
        <p>
          E-mail{" "}
          <a href={`mailto:${COMPANY.pressEmail}`} className={proseLink}>
            {COMPANY.pressEmail}
          </a>
          . We answer media questions on business days, usually the same day.
        </p>
      </PageSection>
    </PublicPage>
  );
}
