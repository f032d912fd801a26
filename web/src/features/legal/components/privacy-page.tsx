import { Link } from "react-router";
import { BulletList, InfoTable, PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { COMPANY, DOCUMENTS_LAST_UPDATED } from "@/lib/site";

const PURPOSES: ReadonlyArray<readonly [string, string, string]> = [
  ["Opening and running your account", "Name, e-mail address, password (stored only as an argon2id hash), phone number", "Contract"],
  [
    "Verifying who you are (FICA customer due diligence)",
    "Name, e-mail verification, and where the law requires it, ID number and proof of address",
    "Legal obligation",
  ],
  [
    "Sending money and issuing cash vouchers",
    "Amount, your saved card (encrypted), recipient's name, mobile number and chosen bank",
    "Contract",
  ],
  [
    "Preventing fraud, money laundering and terrorist financing",
    "Transfer history, device and network details, limit checks",
    "Legal obligation and legitimate interest",
  ],
  ["Sending SMS and e-mail messages you need", "E-mail address, recipient's mobile number", "Contract"],
  ["Answering your questions and complaints", "What you tell us, your account and transfer details", "Contract and legitimate interest"],
  [
    "Improving Thumela (first-party analytics)",
    "Pages viewed, app events such as a transfer started, an anonymous browser id, and after sign-in your user id and e-mail",
    "Legitimate interest",
  ],
];

const RETENTION: ReadonlyArray<readonly [string, string]> = [
  ["Identity and transaction records", "5 years after the transaction or the end of our relationship, as FICA requires"],
  ["Saved cards", "Until you delete the card; the CVV is never stored"],
  ["One-time codes", "10 minutes; only a hash is stored"],
  ["Your signed-in session", "30 days of inactivity, and at most 90 days"],
  ["Analytics events", "13 months, then deleted"],
  ["Support conversations", "3 years after the conversation closes"],
];

export default function PrivacyPage() {
  return (
    <PublicPage
      title="Privacy Policy"
      updated={DOCUMENTS_LAST_UPDATED}
      lead="How Thumela collects, uses and protects your personal information under the Protection of Personal Information Act, 2013 (POPIA)."
    >
      <PageSection id="who-we-are" title="Who we are">
        <p>
          {COMPANY.legalName} (registration number {COMPANY.registrationNumber}), {COMPANY.addressLines.join(", ")}, is the
          responsible party for the personal information described here.
        </p>
      </PageSection>

      <PageSection id="information-officer" title="Our Information Officer">
        <p>
          Our Information Officer, {COMPANY.informationOfficer}, is registered with the Information Regulator and oversees how
          we handle personal information. Contact her at{" "}
          <a href={`mailto:${COMPANY.privacyEmail}`} className={proseLink}>
            {COMPANY.privacyEmail}
          </a>{" "}
          or by post at the address above, marked “Attention: Information Officer”.
        </p>
      </PageSection>

      <PageSection id="purposes" title="What we collect and why">
        <p>We collect only what we need for a specific purpose, and we tell you the lawful basis for each:</p>
        <InfoTable caption="Purposes of processing" columns={["Purpose", "Information", "Lawful basis"]} rows={PURPOSES} />
        <p>
          We don't sell your personal information and we don't use it for advertising. Our analytics are first-party: the
          events go to Thumela's own servers, not to an analytics company.
        </p>
      </PageSection>

      <PageSection id="recipients" title="Information about the people you send to">
        <p>
          When you send money, you give us your recipient's name and mobile number. We use them only to issue the voucher, to
          SMS it to them, and to meet our legal duties. By sending, you confirm that your recipient expects the money and that
          you may share their number with us.
        </p>
      </PageSection>

      <PageSection id="sharing" title="Who we share it with">
        <BulletList
          items={[
            "Our partner banks, to pay out the cash voucher at their ATMs.",
            "Our card payment processor, to charge your card.",
            "Our SMS and e-mail providers, to deliver messages.",
            "The Financial Intelligence Centre, the SAPS or a court, when the law requires it.",
          ]}
        />
        <p>
          Every service provider signs an operator agreement that binds them to POPIA's security conditions. We keep your
          information in South Africa; if a provider ever needs to process it abroad, we will do so only as section 72 of
          POPIA allows.
        </p>
      </PageSection>

      <PageSection id="rights" title="Your rights">
        <BulletList
          items={[
            "Ask whether we hold information about you and get a copy of it (see our PAIA manual, available on request).",
            "Ask us to correct or delete information that is wrong, out of date or that we may no longer keep.",
            "Object to processing based on our legitimate interest, including analytics.",
            "Withdraw consent where we rely on it, without affecting what was done before.",
            "Not be subject to a decision based solely on automated processing that has legal effect for you; you can ask a person to review a refused transfer.",
            "Complain to the Information Regulator (www.inforegulator.org.za) if you are unhappy with how we handled your request.",
          ]}
        />
        <p>
          To use a right, e-mail our Information Officer. We answer within 30 days. We may need to confirm who you are first,
          and some records must be kept by law even if you ask us to delete them.
        </p>
      </PageSection>

      <PageSection id="retention" title="How long we keep it">
        <InfoTable caption="Retention periods" columns={["Information", "Kept for"]} rows={RETENTION} />
      </PageSection>

      <PageSection id="security" title="How we protect it">
        <p>
          Card numbers are encrypted and never shown in full again, passwords are hashed, and your session lives in a
          secure, HttpOnly cookie that scripts cannot read. Read more on our{" "}
          <Link to="/security" className={proseLink}>
            security page
          </Link>{" "}
          and in our{" "}
          <Link to="/cookies" className={proseLink}>
            cookie policy
          </Link>
          . If a breach ever puts your information at risk, we will tell you and the Information Regulator as POPIA requires.
        </p>
      </PageSection>

      <PageSection id="children" title="Children">
        <p>Thumela is for people aged 18 and older. We don't knowingly open accounts for children.</p>
      </PageSection>

      <PageSection id="changes" title="Changes to this policy">
        <p>
          When we change this policy we update the date above, and we e-mail you before a change that affects how we use your
          information takes effect.
        </p>
      </PageSection>
    </PublicPage>
  );
}
