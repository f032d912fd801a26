import { Clock, Mail, Phone, ShieldAlert } from "lucide-react";
import { Link } from "react-router";
import { BulletList, PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { COMPANY, SUPPORT_HOURS } from "@/lib/site";

const card = "rounded-xl border border-slate-200 bg-white p-5 dark:border-slate-800 dark:bg-slate-900";

export default function SupportPage() {
  return (
    <PublicPage title="Support" lead="We're here to help senders and recipients, by e-mail, phone or the Help Center.">
      <ul className="grid gap-4 sm:grid-cols-2">
        <li className={card}>
          <Clock aria-hidden="true" className="size-6 text-brand-700 dark:text-brand-300" />
          <h2 className="mt-3 font-semibold text-slate-900 dark:text-white">When we're available</h2>
          <ul className="mt-2 space-y-1 text-sm text-slate-700 dark:text-slate-300">
            <li>
              <strong>{SUPPORT_HOURS.always}</strong> by e-mail, and by phone for fraud, lost phones and blocked accounts
            </li>
            <li>
              Business hours for all other calls: {SUPPORT_HOURS.weekdays}, {SUPPORT_HOURS.saturday}
            </li>
            <li>Closed for general calls on Sundays and public holidays</li>
          </ul>
        </li>
        <li className={card}>
          <Phone aria-hidden="true" className="size-6 text-brand-700 dark:text-brand-300" />
          <h2 className="mt-3 font-semibold text-slate-900 dark:text-white">Call us</h2>
          <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
            <a href={COMPANY.phoneHref} className={proseLink}>
              {COMPANY.phoneWord} ({COMPANY.phoneDisplay})
            </a>
            , toll-free from any South African landline or mobile.
          </p>
        </li>
        <li className={card}>
          <Mail aria-hidden="true" className="size-6 text-brand-700 dark:text-brand-300" />
          <h2 className="mt-3 font-semibold text-slate-900 dark:text-white">E-mail us</h2>
          <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
            <a href={`mailto:${COMPANY.supportEmail}`} className={proseLink}>
              {COMPANY.supportEmail}
            </a>
            . Include the first 8 characters of the transfer's reference number if your question is about a transfer.
          </p>
        </li>
        <li className={card}>
          <ShieldAlert aria-hidden="true" className="size-6 text-red-700 dark:text-red-300" />
          <h2 className="mt-3 font-semibold text-slate-900 dark:text-white">Fraud or a lost phone?</h2>
          <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
            Call us at once, day or night. If a voucher has not been collected, cancel it in your Transaction History for a
            full refund.
          </p>
        </li>
      </ul>

      <PageSection title="Help yourself first">
        <BulletList
          items={[
            <>
              Read the{" "}
              <Link to="/faq" className={proseLink}>
                FAQ
              </Link>{" "}
              for fees, limits and how collection works.
            </>,
            <>
              Signed in? The{" "}
              <Link to="/help" className={proseLink}>
                Help Center
              </Link>{" "}
              has answers about your account and lets you report an issue.
            </>,
            <>
              Check the{" "}
              <Link to="/fees" className={proseLink}>
                fee schedule
              </Link>{" "}
              before you send.
            </>,
          ]}
        />
      </PageSection>

      <PageSection title="For recipients">
        <p>
          You don't need a Thumela account to collect cash. Keep the SMS with the voucher number (and the PIN, unless the sender
          gives it to you), go to an ATM of the bank named in it (another bank's ATM will not pay out), and choose the cash-send
          option. If the ATM won't pay out, call us from the phone the SMS was sent
          to.
        </p>
      </PageSection>
    </PublicPage>
  );
}
