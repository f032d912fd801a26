import type { ReactNode } from "react";
import type { ArticleArt } from "../content/articles";
import { cn } from "@/lib/cn";

/**
 * Each article's header image: a small SVG drawn here (no photos, no downloads), in the brand's
 * colours, readable in light and dark themes. `label` names it for screen readers.
 */
export function ArticleIllustration({ art, label, className }: { art: ArticleArt; label: string; className?: string }) {
  return (
    <svg
      role="img"
      aria-label={label}
      viewBox="0 0 320 180"
      className={cn("w-full rounded-xl bg-brand-50 dark:bg-slate-800", className)}
    >
      <circle cx="270" cy="30" r="60" className="fill-brand-100 dark:fill-brand-950" />
      <circle cx="40" cy="165" r="45" className="fill-brand-100 dark:fill-brand-950" />
      {ART[art]}
    </svg>
  );
}

const stroke = { fill: "none", strokeWidth: 6, strokeLinecap: "round", strokeLinejoin: "round" } as const;

const ART: Record<ArticleArt, ReactNode> = {
  voucher: (
    <g>
      {/* ATM */}
      <rect x="170" y="40" width="90" height="110" rx="10" className="fill-brand-700 dark:fill-brand-600" />
      <rect x="182" y="54" width="66" height="36" rx="4" className="fill-brand-100" />
      <rect x="190" y="104" width="50" height="8" rx="4" className="fill-brand-900" />
      <rect x="198" y="118" width="34" height="22" rx="2" className="fill-amber-300" />
      {/* phone with SMS */}
      <rect x="70" y="36" width="70" height="118" rx="12" className="fill-slate-800 dark:fill-slate-950" />
      <rect x="77" y="50" width="56" height="88" rx="4" className="fill-white" />
      <rect x="83" y="60" width="44" height="22" rx="6" className="fill-brand-200" />
      <rect x="88" y="67" width="30" height="4" rx="2" className="fill-brand-800" />
      <rect x="88" y="74" width="20" height="4" rx="2" className="fill-brand-800" />
      <path d="M145 95 h18" {...stroke} className="stroke-brand-700 dark:stroke-brand-300" />
      <path d="M157 89 l6 6 -6 6" {...stroke} className="stroke-brand-700 dark:stroke-brand-300" />
    </g>
  ),
  shield: (
    <g>
      <rect x="185" y="40" width="64" height="110" rx="12" className="fill-slate-800 dark:fill-slate-950" />
      <rect x="192" y="54" width="50" height="80" rx="4" className="fill-white" />
      <path d="M130 36 l50 18 v36 c0 30 -22 48 -50 58 c-28 -10 -50 -28 -50 -58 v-36 z" className="fill-brand-700 dark:fill-brand-600" />
      <path d="M108 92 l16 16 l30 -32" {...stroke} className="stroke-white" />
    </g>
  ),
  gift: (
    <g>
      <rect x="100" y="80" width="120" height="70" rx="6" className="fill-brand-700 dark:fill-brand-600" />
      <rect x="92" y="62" width="136" height="24" rx="6" className="fill-brand-800 dark:fill-brand-500" />
      <rect x="152" y="62" width="16" height="88" className="fill-amber-300" />
      <path d="M160 62 c-20 -30 -46 -14 -30 0 M160 62 c20 -30 46 -14 30 0" {...stroke} className="stroke-amber-400" />
      <circle cx="250" cy="120" r="26" className="fill-amber-300" />
      <text x="250" y="129" textAnchor="middle" fontSize="26" fontWeight="700" className="fill-amber-800">
        R
      </text>
    </g>
  ),
  gauge: (
    <g>
      <path d="M90 140 a70 70 0 0 1 140 0" fill="none" strokeWidth="18" className="stroke-slate-300 dark:stroke-slate-600" />
      <path d="M90 140 a70 70 0 0 1 100 -63" fill="none" strokeWidth="18" className="stroke-brand-600" />
      <path d="M160 140 l-32 -44" {...stroke} className="stroke-slate-800 dark:stroke-white" />
      <circle cx="160" cy="140" r="10" className="fill-slate-800 dark:fill-white" />
    </g>
  ),
  home: (
    <g>
      <path d="M100 95 l60 -50 l60 50" {...stroke} strokeWidth={8} className="stroke-brand-800 dark:stroke-brand-300" />
      <rect x="115" y="92" width="90" height="62" rx="4" className="fill-brand-700 dark:fill-brand-600" />
      <rect x="148" y="118" width="24" height="36" rx="2" className="fill-amber-300" />
      <path
        d="M250 60 c-8 -14 -28 -8 -22 8 c4 10 22 22 22 22 c0 0 18 -12 22 -22 c6 -16 -14 -22 -22 -8 z"
        className="fill-red-500"
      />
    </g>
  ),
};
