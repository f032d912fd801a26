import type { ReactNode } from "react";
import { cn } from "@/lib/cn";

/**
 * The frame of a public content page: its one h1, an optional lead and "Last updated" line,
 * then the content in readable prose width (or `wide` for grids).
 */
export function PublicPage({
  title,
  lead,
  updated,
  wide = false,
  children,
}: {
  title: string;
  lead?: ReactNode;
  updated?: string;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={cn("mx-auto px-4 py-12 sm:px-6 md:py-16", wide ? "max-w-6xl" : "max-w-3xl")}>
      <header className="mb-10">
        <h1 className="text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl dark:text-white">{title}</h1>
        {lead && <p className="mt-4 text-lg text-slate-600 dark:text-slate-300">{lead}</p>}
        {updated && <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">Last updated: {updated}</p>}
      </header>
      {children}
    </div>
  );
}

/** A titled section of a content page; `id` makes it linkable (e.g. /privacy#rights). */
export function PageSection({ id, title, children }: { id?: string; title: string; children: ReactNode }) {
  return (
    <section id={id} aria-labelledby={id ? `${id}-title` : undefined} className="mt-10 first:mt-0">
      <h2 id={id ? `${id}-title` : undefined} className="text-xl font-semibold tracking-tight text-slate-900 dark:text-white">
        {title}
      </h2>
      <div className="prose-body mt-3 space-y-3 text-slate-700 dark:text-slate-300">{children}</div>
    </section>
  );
}

/** A bulleted list in content pages. */
export function BulletList({ items }: { items: readonly ReactNode[] }) {
  return (
    <ul className="list-disc space-y-1.5 pl-5 marker:text-brand-600">
      {items.map((item, index) => (
        <li key={index}>{item}</li>
      ))}
    </ul>
  );
}

/** A simple two-or-more-column table with a caption (read aloud as the table's name). */
export function InfoTable({
  caption,
  columns,
  rows,
}: {
  caption: string;
  columns: readonly string[];
  rows: ReadonlyArray<readonly ReactNode[]>;
}) {
  return (
    // A named, focusable region: on a phone the table scrolls sideways, and a keyboard user
    // scrolls it with the arrow keys once it has focus (axe: scrollable-region-focusable; the
    // WAI pattern for a scrollable region, which the lint rule does not know).
    <div
      role="region"
      aria-label={caption}
      // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
      tabIndex={0}
      className="overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-800"
    >
      <table className="w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-50 text-slate-700 dark:bg-slate-900 dark:text-slate-300">
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" className="px-4 py-2.5 font-semibold">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
          {rows.map((row, index) => (
            <tr key={index}>
              {row.map((cell, cellIndex) =>
                cellIndex === 0 ? (
                  <th key={cellIndex} scope="row" className="px-4 py-2.5 font-medium text-slate-900 dark:text-white">
                    {cell}
                  </th>
                ) : (
                  <td key={cellIndex} className="px-4 py-2.5 text-slate-700 dark:text-slate-300">
                    {cell}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Links inside prose. */
export const proseLink =
  "font-medium text-brand-700 underline underline-offset-2 hover:text-brand-800 dark:text-brand-300 dark:hover:text-brand-200";
