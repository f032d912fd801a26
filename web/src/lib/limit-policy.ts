import { useQuery } from "@connectrpc/connect-query";
import { LimitKind, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { GetLimitPolicyResponse } from "@/gen/thumela/bff/v1/bff_pb";
import { formatMoney } from "./money";

/**
 * The transfer limits come from ONE place: the transfers service, which enforces them and whose
 * configuration sets them (TRANSFERS_LIMIT_*_CENTS). The web keeps no copy: public pages read
 * them from GetLimitPolicy (no session needed), the signed-in sender's usage from GetLimits.
 */
export type LimitFigure = "minimum" | "perTransfer" | "perDay" | "perMonth" | "perYear";

const KIND_FIGURE: Partial<Record<LimitKind, LimitFigure>> = {
  [LimitKind.MINIMUM]: "minimum",
  [LimitKind.PER_TRANSFER]: "perTransfer",
  [LimitKind.DAILY]: "perDay",
  [LimitKind.MONTHLY]: "perMonth",
  [LimitKind.YEARLY]: "perYear",
};

/** The calendar the daily, monthly and yearly limits follow. */
export const LIMITS_TIME_ZONE_LABEL = "South African Standard Time (SAST, Africa/Johannesburg)";

/** The policy's figures in cents by name; a kind the server did not send is absent. */
export function policyCents(policy: GetLimitPolicyResponse | undefined): Partial<Record<LimitFigure, bigint>> {
  const out: Partial<Record<LimitFigure, bigint>> = {};
  for (const limit of policy?.limits ?? []) {
    const figure = KIND_FIGURE[limit.kind];
    if (figure) out[figure] = limit.limitCents;
  }
  return out;
}

/** The policy's figures as shown to people ("R3 000,00"). */
export function policyFigures(policy: GetLimitPolicyResponse | undefined): Partial<Record<LimitFigure, string>> {
  const out: Partial<Record<LimitFigure, string>> = {};
  for (const [figure, cents] of Object.entries(policyCents(policy))) out[figure as LimitFigure] = formatMoney(cents);
  return out;
}

/** Rows for a limits table, in the order people think about them. */
export const LIMIT_ROW_LABELS: ReadonlyArray<{ figure: LimitFigure; label: string }> = [
  { figure: "minimum", label: "Minimum per transfer" },
  { figure: "perTransfer", label: "Maximum per transfer" },
  { figure: "perDay", label: "Per calendar day" },
  { figure: "perMonth", label: "Per calendar month" },
  { figure: "perYear", label: "Per calendar year" },
];

/**
 * The configured limits. The BFF caches them for a minute and they change only with a
 * redeploy, so the browser keeps them for 5 minutes too.
 */
export function useLimitPolicy() {
  const query = useQuery(TransfersService.method.getLimitPolicy, {}, { staleTime: 5 * 60_000 });
  return { ...query, figures: policyFigures(query.data) };
}

/**
 * Content (FAQ answers, articles) names a limit as a token, e.g. "at least {limit:minimum}";
 * splitText cuts such a text into literal parts and the limits it names.
 */
const TOKEN = /\{limit:(minimum|perTransfer|perDay|perMonth|perYear)\}/g;

export type TextPart = { text: string } | { figure: LimitFigure };

export function splitLimitText(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index) });
    parts.push({ figure: match[1] as LimitFigure });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

/** The text with its limit tokens filled in, or undefined while a figure it needs is unknown. */
export function fillLimitText(text: string, figures: Partial<Record<LimitFigure, string>>): string | undefined {
  let missing = false;
  const out = text.replace(TOKEN, (_, figure: LimitFigure) => {
    const value = figures[figure];
    if (value === undefined) missing = true;
    return value ?? "";
  });
  return missing ? undefined : out;
}

/** The text without its tokens, for search: "at least {limit:minimum}" → "at least limit". */
export function searchableLimitText(text: string): string {
  return text.replace(TOKEN, "limit");
}
