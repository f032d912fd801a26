import { BulletList, PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { COMPANY, DOCUMENTS_LAST_UPDATED } from "@/lib/site";

export default function ResponsibleDisclosurePage() {
  return (
    <PublicPage
      title="Responsible Disclosure"
      updated={DOCUMENTS_LAST_UPDATED}
      lead="We welcome reports from security researchers. If you find a vulnerability in Thumela, please tell us privately so we can fix it before anyone is harmed."
    >
      <PageSection id="how" title="How to report">
        <p>
          E-mail{" "}
          <a href={`mailto:${COMPANY.securityEmail}`} className={proseLink}>
            {COMPANY.securityEmail}
          </a>{" "}
          with a description of the issue, the steps to reproduce it, and what an attacker could do with it. Screenshots or a
          short video help.
        </p>
      </PageSection>

      <PageSection id="our-promise" title="What we promise">
        <BulletList
          items={[
            "We acknowledge your report within 48 hours.",
            "We tell you within 5 business days whether we could reproduce it and how serious we think it is.",
            "We keep you updated until it is fixed, and credit you on request once it is.",
            "We will not take legal action against you for research done within these rules.",
          ]}
        />
      </PageSection>

      <PageSection id="rules" title="The rules">
        <BulletList
          items={[
            "Test only with accounts you own, and only with the sandbox test cards; never use someone else's card or data.",
            "Don't access, change or delete other people's data; stop and report as soon as you see any.",
            "No denial-of-service, spam, social engineering of our staff or customers, or physical attacks.",
            "Give us reasonable time to fix the issue before you publish anything.",
          ]}
        />
      </PageSection>

      <PageSection id="scope" title="In and out of scope">
        <p>In scope: the Thumela website and its APIs. Out of scope:</p>
        <BulletList
          items={[
            "Reports from automated scanners without a demonstrated impact.",
            "Missing best-practice headers or cookie flags without a working attack.",
            "Partner banks' ATMs and systems: please report those to the bank.",
          ]}
        />
      </PageSection>
    </PublicPage>
  );
}
