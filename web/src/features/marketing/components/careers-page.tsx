import { Briefcase, MapPin } from "lucide-react";
import { BulletList, PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { COMPANY } from "@/lib/site";

interface Role {
  id: string;
  title: string;
  team: string;
  location: string;
  summary: string;
  responsibilities: string[];
  requirements: string[];
}

const OPEN_ROLES: readonly Role[] = [
  {
    id: "senior-backend-engineer-payments",
    title: "Senior Backend Engineer, Payments",
    team: "Engineering",
    location: "Johannesburg (hybrid, 3 days in Braamfontein)",
    summary:
      "Own the services that charge cards, issue cash vouchers and refund expired ones: Go, gRPC, PostgreSQL and NATS.",
    responsibilities: [
      "Design and run idempotent payment flows that never charge twice",
      "Integrate new partner banks' cash-send APIs",
      "Keep our transfer limits, ledgers and reconciliation exact to the cent",
    ],
    requirements: [
      "5+ years building backend systems, 2+ with Go",
      "Experience with card payments, PCI DSS or banking integrations",
      "Comfortable being on call for a production payments system",
    ],
  },
  {
    id: "customer-support-specialist",
    title: "Customer Support Specialist (isiZulu and English)",
    team: "Customer Experience",
    location: "Johannesburg (on site, shifts include Saturdays)",
    summary:
      "Help senders and recipients by phone, e-mail and chat: lost vouchers, wrong numbers, refunds and card questions.",
    responsibilities: [
      "Answer customers within our service levels on every channel",
      "Cancel and re-issue vouchers and explain refunds clearly",
      "Spot and escalate possible fraud or scams",
    ],
    requirements: [
      "Fluent in isiZulu and English; Sesotho or isiXhosa is a plus",
      "2+ years in a contact centre, ideally in banking or fintech",
      "Matric; a financial services qualification is a plus",
    ],
  },
  {
    id: "compliance-analyst-fica",
    title: "Compliance Analyst (FICA)",
    team: "Risk and Compliance",
    location: "Johannesburg (hybrid)",
    summary:
      "Keep Thumela on the right side of FICA and POPIA: customer due diligence, transaction monitoring and reports to the FIC.",
    responsibilities: [
      "Review alerts from transaction monitoring and file reports with the Financial Intelligence Centre",
      "Maintain our risk management and compliance programme (RMCP)",
      "Answer data subject requests with our Information Officer",
    ],
    requirements: [
      "3+ years in AML/CFT compliance at a bank, insurer or payment provider",
      "Working knowledge of FICA, its directives and POPIA",
      "A degree in law, commerce or similar",
    ],
  },
];

export default function CareersPage() {
  return (
    <PublicPage
      wide
      title="Careers"
      lead="We are a small team in Johannesburg building the simplest way to send cash in South Africa. These roles are open now."
    >
      <h2 className="sr-only">Open roles</h2>
      <ul className="grid gap-6 lg:grid-cols-3">
        {OPEN_ROLES.map((role) => (
          <li key={role.id} id={role.id} className="flex flex-col rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
            <p className="text-sm font-medium text-brand-700 dark:text-brand-300">{role.team}</p>
            <h3 className="mt-1 text-lg font-semibold text-slate-900 dark:text-white">{role.title}</h3>
            <p className="mt-2 flex items-center gap-1.5 text-sm text-slate-600 dark:text-slate-400">
              <MapPin aria-hidden="true" className="size-4" />
              {role.location}
            </p>
            <p className="mt-3 text-sm text-slate-700 dark:text-slate-300">{role.summary}</p>
            <h4 className="mt-4 text-sm font-semibold text-slate-900 dark:text-white">What you'll do</h4>
            <div className="mt-2 text-sm text-slate-700 dark:text-slate-300">
              <BulletList items={role.responsibilities} />
            </div>
            <h4 className="mt-4 text-sm font-semibold text-slate-900 dark:text-white">What you bring</h4>
            <div className="mt-2 text-sm text-slate-700 dark:text-slate-300">
              <BulletList items={role.requirements} />
            </div>
            <a
              href={`mailto:${COMPANY.careersEmail}?subject=${encodeURIComponent(`Application: ${role.title}`)}`}
              className="mt-6 inline-flex items-center gap-2 self-start rounded-lg bg-brand-700 px-4 py-2.5 text-sm font-medium text-white hover:bg-brand-800 dark:bg-brand-600 dark:hover:bg-brand-500"
            >
              <Briefcase aria-hidden="true" className="size-4" />
              Apply<span className="sr-only"> for {role.title}</span>
            </a>
          </li>
        ))}
      </ul>
      <div className="mx-auto mt-12 max-w-3xl">
        <PageSection title="How we hire">
          <p>
            Send your CV and a short note to{" "}
            <a href={`mailto:${COMPANY.careersEmail}`} className={proseLink}>
              {COMPANY.careersEmail}
            </a>
            . We reply to every applicant within 10 business days. Interviews are a conversation with the team, a
            practical exercise paid at our day rate, and a final chat with a founder.
          </p>
          <p>
            Thumela is an equal opportunity employer and supports the aims of the Employment Equity Act. We process
            applicants' information under our privacy policy and delete it 12 months after the role is filled unless you
            ask us to keep it.
          </p>
        </PageSection>
      </div>
    </PublicPage>
  );
}
