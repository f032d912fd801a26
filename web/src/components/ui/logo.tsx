import { Link } from "react-router";
import { cn } from "@/lib/cn";

/** The Thumela word mark; links to the landing page. */
export function Logo({ className, to = "/" }: { className?: string; to?: string }) {
  return (
    <Link to={to} className={cn("inline-flex items-center gap-2 rounded-md font-semibold tracking-tight", className)}>
      <svg aria-hidden="true" viewBox="0 0 32 32" className="size-8">
        <rect width="32" height="32" rx="8" className="fill-brand-700 dark:fill-brand-600" />
        <path
          d="M9 11h14M16 11v12M20 17l3 3-3 3"
          fill="none"
          stroke="white"
          strokeWidth="2.5"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
      <span className="text-lg text-slate-900 dark:text-white">Thumela</span>
    </Link>
  );
}
