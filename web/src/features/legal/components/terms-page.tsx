import { Link } from "react-router";
import { BulletList, PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { NEW_USER_CREDIT, REFERRER_REWARD } from "@/lib/credit";
import { PLATFORM_FEE_TEXT } from "@/lib/fee-schedule";
import { LimitText } from "@/components/limit-text";
import { LIMITS_TIME_ZONE_LABEL } from "@/lib/limit-policy";
import { VOUCHER_VALID_DAYS } from "@/lib/voucher";
import { COMPANY, DOCUMENTS_LAST_UPDATED } from "@/lib/site";

export default function TermsPage() {
  return (
    <PublicPage
      title="Terms of Service"
      updated={DOCUMENTS_LAST_UPDATED}
      lead={`The agreement between you and ${COMPANY.legalName} when you use Thumela. Please read it; the parts in bold limit our liability or place risk on you, as the Consumer Protection Act requires us to point out.`}
    >
      <PageSection id="eligibility" title="1. Who can use Thumela">
        <p>
          You must be at least 18 years old, live in South Africa, and pass our identity checks. You may hold one Thumela
          account, for your own use.
        </p>
      </PageSection>

      <PageSection id="service" title="2. The service">
        <p>
          Thumela lets you send South African rand from your Visa or Mastercard card to a recipient, who collects it as cash
          at an ATM of the bank you choose when sending (Standard Bank, ABSA, FNB, Nedbank or Capitec), and only that bank's,
          using a voucher number sent to their phone by SMS and a PIN (sent with it, or given to them by you). Amounts are whole
          rand in multiples of R10, because ATMs pay out notes.
          Thumela is not a bank and does not hold deposits.
        </p>
      </PageSection>

      <PageSection id="fees" title="3. Fees">
        <p>
          Each transfer costs the recipient bank's cash-send fee plus a platform fee of {PLATFORM_FEE_TEXT} of the amount,
          rounded to the nearest cent. Your first transfer is free. You see the exact fee before you confirm. The current
          fees are in our{" "}
          <Link to="/fees" className={proseLink}>
            fee schedule
          </Link>
          .
        </p>
      </PageSection>

      <PageSection id="limits" title="4. Limits">
        <p>
          <LimitText
            text={`A transfer must be at least {limit:minimum} and at most {limit:perTransfer}. Your transfers together may not exceed {limit:perDay} per day, {limit:perMonth} per calendar month or {limit:perYear} per calendar year, measured in ${LIMITS_TIME_ZONE_LABEL}.`}
          />{" "}
          We may lower your limits, or ask for more information, where the law or our
          risk assessment requires it.
        </p>
      </PageSection>

      <PageSection id="vouchers" title="5. Vouchers, collection and refunds">
        <BulletList
          items={[
            `A voucher is valid for ${VOUCHER_VALID_DAYS} days from when it is issued.`,
            "You can cancel a voucher that has not been collected at any time, for a full refund of the amount and the fee.",
            "A voucher that expires uncollected is refunded in full, fee included, to the card you paid with.",
            "Refunds reach your card within the time your card issuer takes, usually 3 to 7 business days.",
            <strong key="pin">
              Anyone who has the voucher number, PIN and the recipient's phone number can collect the cash. Check the
              recipient's number before you send; we are not liable for money collected with a voucher sent to the number
              you gave us.
            </strong>,
          ]}
        />
      </PageSection>

      <PageSection id="your-duties" title="6. Your responsibilities">
        <BulletList
          items={[
            "Keep your password and one-time codes secret. We will never ask you for them.",
            "Use only cards in your own name.",
            "Don't use Thumela for anything illegal, including paying for illegal goods, gambling with unlicensed operators, or sending money you suspect comes from crime.",
            "Tell us at once if you think someone else is using your account.",
          ]}
        />
      </PageSection>

      <PageSection id="refusals" title="7. When we may refuse or stop a transfer">
        <p>
          We may refuse, delay or reverse a transfer, or suspend your account, where the law requires it, where we suspect
          fraud or money laundering, or where a transfer would break these terms. Where the law allows, we will tell you why.
        </p>
      </PageSection>

      <PageSection id="referrals" title="8. Refer a friend">
        <p>
          A friend who signs up with your referral code gets {NEW_USER_CREDIT} transfer credit, usable on the fees of their transfers.
          You get {REFERRER_REWARD} transfer credit for each referred friend who completes a first transfer. Credit pays transfer fees only, never the amount sent; it has no cash value, can't be
          transferred, and is not available for accounts opened to abuse the programme. We may end the programme with 30
          days' notice; credit already earned stays valid.
        </p>
      </PageSection>

      <PageSection id="liability" title="9. Liability">
        <p>
          <strong>
            To the extent the law allows, we are not liable for indirect or consequential loss, or for delays caused by
            banks, card networks, mobile networks or events beyond our control. Our liability for a transfer is limited to
            the amount and fee of that transfer.
          </strong>{" "}
          Nothing in these terms limits rights you have under the Consumer Protection Act or the National Credit Act that
          cannot be limited.
        </p>
      </PageSection>

      <PageSection id="complaints" title="10. Complaints and disputes">
        <p>
          Contact our support team first; we aim to resolve complaints within 10 business days. If you are not satisfied, you
          may refer the matter to the relevant ombud. These terms are governed by the law of the Republic of South Africa.
        </p>
      </PageSection>

      <PageSection id="changes" title="11. Changes">
        <p>
          We may change these terms. We will e-mail you at least 30 days before a change that affects you takes effect; if you
          don't agree, you may close your account without charge.
        </p>
      </PageSection>

      <PageSection id="contact" title="12. Contact">
        <p>
          {COMPANY.legalName}, {COMPANY.addressLines.join(", ")}.{" "}
          <a href={`mailto:${COMPANY.supportEmail}`} className={proseLink}>
            {COMPANY.supportEmail}
          </a>
          , {COMPANY.phoneDisplay}.
        </p>
      </PageSection>
    </PublicPage>
  );
}
