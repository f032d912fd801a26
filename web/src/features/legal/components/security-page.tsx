import { Link } from "react-router";
import { BulletList, PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { COMPANY, DOCUMENTS_LAST_UPDATED } from "@/lib/site";

export default function SecurityPage() {
  return (
    <PublicPage
      title="Security"
      updated={DOCUMENTS_LAST_UPDATED}
      lead="How we keep your money and information safe, and how you can help."
    >
      <PageSection id="account" title="Your account">
        <BulletList
          items={[
            "Passwords are at least 8 characters and are stored only as an argon2id hash, never in plain text.",
            "New accounts are verified with a 6-digit code sent by e-mail. Codes expire after 10 minutes and lock after 5 wrong tries.",
            "Your session is kept in a secure, HttpOnly, first-party cookie: scripts on the page cannot read it. It ends after 30 days without use, and logging out ends it on our servers at once.",
          ]}
        />
      </PageSection>

      <PageSection id="cards" title="Your cards">
        <BulletList
          items={[
            "Your card number goes once, over an encrypted connection, to our card vault, where it is encrypted with AES-256-GCM.",
            "After that we show only the card brand, name, last four digits and expiry date.",
            "The CVV is used once to authorise the first payment and is never stored.",
          ]}
        />
      </PageSection>

      <PageSection id="vouchers" title="Your transfers">
        <BulletList
          items={[
            "The voucher PIN is sent only to your recipient's phone; it is never shown to you, so no one can trick you into sharing it.",
            "Every transfer request carries a unique key, so a retried request can never charge you twice.",
            "You can cancel an uncollected voucher at any time for a full refund.",
          ]}
        />
      </PageSection>

      <PageSection id="infrastructure" title="Our systems">
        <BulletList
          items={[
            "All traffic is encrypted with TLS. Our pages send strict security headers, including a content security policy.",
            "Each of our services only sees the data of the signed-in user it is working for.",
            "We log and monitor access, patch regularly, and test our systems, including through responsible disclosure.",
          ]}
        />
      </PageSection>

      <PageSection id="stay-safe" title="How to stay safe">
        <BulletList
          items={[
            "Thumela will never phone, SMS or e-mail you to ask for your password, one-time code, card PIN or CVV.",
            "Only log in at the Thumela address you typed yourself; be careful with links in messages.",
            "Never send money to someone you have not met because they ask for it urgently.",
            "If something seems wrong, log out, change your password and call us.",
          ]}
        />
        <p>
          Read our article on{" "}
          <Link to="/blog/spot-a-voucher-scam" className={proseLink}>
            the five signs of a cash voucher scam
          </Link>
          .
        </p>
      </PageSection>

      <PageSection id="report" title="Report a vulnerability">
        <p>
          Found a security issue? Please tell us at{" "}
          <a href={`mailto:${COMPANY.securityEmail}`} className={proseLink}>
            {COMPANY.securityEmail}
          </a>{" "}
          and follow our{" "}
          <Link to="/responsible-disclosure" className={proseLink}>
            responsible disclosure policy
          </Link>
          .
        </p>
      </PageSection>
    </PublicPage>
  );
}
