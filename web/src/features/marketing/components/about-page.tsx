import { HandCoins, MapPinned, ShieldCheck, Smartphone } from "lucide-react";
import { Link } from "react-router";
import { BulletList, PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { COMPANY, PARTNER_BANKS } from "@/lib/site";

const VALUES = [
  {
    icon: HandCoins,
    title: "Fees you can see",
    text: "Every fee is shown before you pay: your recipient's bank's cash-send fee plus 0.3%. Your first transfer is free.",
  },
  {
    icon: MapPinned,
    title: "Cash where people are",
    text: `Recipients collect at ATMs of ${PARTNER_BANKS.join(", ").replace(/, ([^,]*)$/, " and $1")}, in towns and townships across all nine provinces.`,
  },
  {
    icon: Smartphone,
    title: "No account needed to receive",
    text: "Your recipient needs only a phone that can receive an SMS. No bank account, no app, no card.",
  },
  {
    icon: ShieldCheck,
    title: "Safe by design",
    text: "Card numbers are encrypted, the voucher PIN goes only to your recipient, and unclaimed money comes back to you.",
  },
];

export default function AboutPage() {
  return (
    <PublicPage
      title="About"
      lead="Thumela means “send” in isiZulu. We make it simple to send cash from your card to anyone in South Africa, who collects it at an ATM with the voucher we SMS them."
    >
      <PageSection title="Why we started Thumela">
        <p>
          Millions of South Africans support family and friends in another town every month. Many of the people they
          send to don't have a bank account, or live far from a branch. Sending cash has meant taxi parcels, queues at
          a till, or sharing banking PINs: slow, expensive or risky.
        </p>
        <p>
          We built Thumela in Johannesburg in 2024 so that anyone with a Visa or Mastercard can send money from their
          phone in under two minutes, and the person on the other side can walk to a nearby ATM and withdraw it, with no
          account and no card.
        </p>
      </PageSection>

      <PageSection title="What we stand for">
        <ul className="grid gap-4 sm:grid-cols-2">
          {VALUES.map(({ icon: Icon, title, text }) => (
            <li key={title} className="rounded-xl border border-slate-200 bg-white p-5 dark:border-slate-800 dark:bg-slate-900">
              <Icon aria-hidden="true" className="size-6 text-brand-700 dark:text-brand-300" />
              <h3 className="mt-3 font-semibold text-slate-900 dark:text-white">{title}</h3>
              <p className="mt-1 text-sm">{text}</p>
            </li>
          ))}
        </ul>
      </PageSection>

      <PageSection title="How Thumela works">
        <BulletList
          items={[
            "You create a profile, verify your e-mail address and save a Visa or Mastercard card.",
            "You enter an amount, your recipient's name and mobile number, and the bank whose ATM they will use.",
            "We charge your card and SMS your recipient a voucher number and PIN.",
            "Your recipient withdraws the cash at that bank's ATM within 7 days. If they don't, you get everything back, fees included.",
          ]}
        />
      </PageSection>

      <PageSection title="Regulated and accountable">
        <p>
          {COMPANY.legalName} (registration number {COMPANY.registrationNumber}) is an accountable institution under
          the Financial Intelligence Centre Act and processes personal information under POPIA. Thumela is not a bank:
          the cash is paid out through our partner banks' cash-send services. Read more on our{" "}
          <Link to="/compliance" className={proseLink}>
            compliance
          </Link>{" "}
          and{" "}
          <Link to="/security" className={proseLink}>
            security
          </Link>{" "}
          pages.
        </p>
      </PageSection>

      <PageSection title="Where to find us">
        <p>
          Our team works from {COMPANY.addressLines.slice(0, 3).join(", ")}. Want to join us? See our{" "}
          <Link to="/careers" className={proseLink}>
            open roles
          </Link>
          .
        </p>
      </PageSection>
    </PublicPage>
  );
}
