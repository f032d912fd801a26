import { Link } from "react-router";
import { BulletList, InfoTable, PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { LimitText } from "@/components/limit-text";
import { LIMIT_ROW_LABELS, LIMITS_TIME_ZONE_LABEL } from "@/lib/limit-policy";
import { VOUCHER_VALID_DAYS } from "@/lib/voucher";
import { COMPANY, DOCUMENTS_LAST_UPDATED } from "@/lib/site";

export default function CompliancePage() {
  return (
    <PublicPage
      title="Compliance"
      updated={DOCUMENTS_LAST_UPDATED}
      lead="How Thumela meets South Africa's financial laws: the Financial Intelligence Centre Act (FICA), POPIA and the rules of the payment system."
    >
      <PageSection id="fica" title="FICA: knowing our customers">
        <p>
          Thumela is an accountable institution under the Financial Intelligence Centre Act, 2001 (FICA). Like a bank, we must
          know who our customers are, understand how they use our service, and report suspicious activity.
        </p>
        <BulletList
          items={[
            "Customer due diligence: we verify your e-mail address when you sign up and, depending on how much you send, ask for your South African ID and proof of address.",
            "Risk management and compliance programme (RMCP): our board-approved programme sets out how we identify, assess and reduce money-laundering and terrorist-financing risk.",
            "Record keeping: we keep identity and transaction records for at least 5 years, as FICA requires.",
            "Reporting: we report suspicious and unusual transactions, and other reports the law prescribes, to the Financial Intelligence Centre. The law forbids us from telling a customer about such a report.",
            "Targeted financial sanctions: we screen customers and recipients against the sanctions lists published under section 26A of FICA.",
          ]}
        />
      </PageSection>

      <PageSection id="limits" title="Transfer limits">
        <p>
          To keep everyday remittances simple and limit abuse, every account has these limits, measured in{" "}
          {LIMITS_TIME_ZONE_LABEL}. Fees do not count towards them, and failed or refunded transfers don't either.
        </p>
        <InfoTable
          caption="Transfer limits"
          columns={["Limit", "Amount"]}
          rows={LIMIT_ROW_LABELS.map((row) => [row.label, <LimitText key={row.figure} text={`{limit:${row.figure}}`} />])}
        />
        <p>
          When a transfer would go over a limit, we tell you which limit and how much you can still send, before anything is
          charged. Vouchers are valid for {VOUCHER_VALID_DAYS} days.
        </p>
      </PageSection>

      <PageSection id="documents" title="FICA requirements: what we may ask for">
        <BulletList
          items={[
            "Your full name and a verified e-mail address (everyone).",
            "Your South African ID number or a valid passport, and a selfie that matches it.",
            "Proof of residential address not older than 3 months, such as a utility bill or bank statement.",
            "Where transfers are unusually large or frequent: the source of the funds.",
          ]}
        />
      </PageSection>

      <PageSection id="popia" title="POPIA: protecting personal information">
        <p>
          We process personal information under the Protection of Personal Information Act, 2013. Our Information Officer is{" "}
          {COMPANY.informationOfficer}. Read the details in our{" "}
          <Link to="/privacy" className={proseLink}>
            privacy policy
          </Link>
          .
        </p>
      </PageSection>

      <PageSection id="payments" title="Payments and partner banks">
        <p>
          Thumela is not a bank and does not take deposits. Card payments are processed by a PCI DSS-certified payment
          processor; cash vouchers are issued and paid out through our partner banks' cash-send services under the National
          Payment System Act, 1998.
        </p>
      </PageSection>

      <PageSection id="contact" title="Compliance contact">
        <p>
          Questions about compliance, or a request from a regulator or law enforcement:{" "}
          <a href={`mailto:${COMPANY.complianceEmail}`} className={proseLink}>
            {COMPANY.complianceEmail}
          </a>
          .
        </p>
      </PageSection>
    </PublicPage>
  );
}
