import { FileText } from "lucide-react";
import { Link } from "react-router";
import { buttonClasses } from "@/components/ui/button";
import { DOCUMENTS_LAST_UPDATED } from "@/lib/site";

const DOCUMENTS = [
  { title: "Terms of Service", to: "/terms" },
  { title: "Privacy Policy", to: "/privacy" },
  { title: "Fee Schedule", to: "/fees" },
  { title: "FICA Requirements", to: "/compliance#documents" },
] as const;

/** Help Center → Documents: each opens the real document page. */
export function HelpDocuments() {
  return (
    <ul className="grid gap-4 sm:grid-cols-2">
      {DOCUMENTS.map((document) => (
        <li
          key={document.title}
          className="flex items-center gap-4 rounded-xl border border-slate-200 bg-white p-5 dark:border-slate-800 dark:bg-slate-900"
        >
          <FileText aria-hidden="true" className="size-8 shrink-0 text-brand-700 dark:text-brand-300" />
          <div className="min-w-0 flex-1">
            <h2 className="font-semibold text-slate-900 dark:text-white">{document.title}</h2>
            <p className="text-sm text-slate-600 dark:text-slate-400">Last updated: {DOCUMENTS_LAST_UPDATED}</p>
          </div>
          <Link to={document.to} className={buttonClasses("outline", "sm")} aria-label={`View ${document.title}`}>
            View
          </Link>
        </li>
      ))}
    </ul>
  );
}
