import { Construction } from "lucide-react";
import type { ReactNode } from "react";
import { Card } from "./card";

/**
 * The honest state of a screen that is not built yet: its real heading and a notice. No
 * sample data and no pretend success.
 */
export function ComingSoon({ title, subtitle, children }: { title: string; subtitle?: string; children?: ReactNode }) {
  return (
    <div className="mx-auto w-full max-w-3xl">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl dark:text-white">{title}</h1>
      {subtitle && <p className="mt-1 text-slate-600 dark:text-slate-400">{subtitle}</p>}
      <Card className="mt-6 flex items-start gap-3 p-6">
        <Construction aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-amber-600" />
        <div>
          <p className="font-medium">This page is coming soon.</p>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
            We are still building this part of Thumela. Nothing here is live yet.
          </p>
          {children}
        </div>
      </Card>
    </div>
  );
}
