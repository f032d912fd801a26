import type { ReactNode } from "react";
import { Card } from "@/components/ui/card";

/** The card every sign-in screen sits in: a heading, a short line under it, the form. */
export function AuthCard({ title, subtitle, children, footer }: { title: string; subtitle?: ReactNode; children: ReactNode; footer?: ReactNode }) {
  return (
    <Card className="w-full max-w-md p-6 sm:p-8">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 dark:text-white">{title}</h1>
      {subtitle && <p className="mt-1.5 text-sm text-slate-600 dark:text-slate-400">{subtitle}</p>}
      <div className="mt-6">{children}</div>
      {footer && <div className="mt-6 text-center text-sm text-slate-600 dark:text-slate-400">{footer}</div>}
    </Card>
  );
}

export const textLinkClasses =
  "font-medium text-brand-700 underline-offset-4 hover:underline dark:text-brand-300 rounded-sm";
