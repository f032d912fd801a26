import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampDate } from "@bufbuild/protobuf/wkt";

// Thumela's clock is South Africa's (DECISIONS.md): a time told to the sender is Johannesburg
// time whatever the browser's zone, so that the history, the details and the SMS the recipient
// got say the same hour to a sender abroad.
export const SA_TIME_ZONE = "Africa/Johannesburg";
const saTime = new Intl.DateTimeFormat("en-ZA", { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: SA_TIME_ZONE });
const saDayMonth = new Intl.DateTimeFormat("en-ZA", { day: "numeric", month: "short", timeZone: SA_TIME_ZONE });
const saDate = new Intl.DateTimeFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", timeZone: SA_TIME_ZONE });
const dayMonthTime = new Intl.DateTimeFormat("en-ZA", {
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
  hour12: false,
  timeZone: SA_TIME_ZONE,
});

/** 'Today, HH:MM', 'Yesterday, HH:MM', otherwise day, short month and time (en-ZA, Johannesburg). */
export function formatRecentDate(value: Date, now: Date = new Date()): string {
  const day = saDate.format(value);
  const today = saDate.format(now);
  if (day === today) return `Today, ${saTime.format(value)}`;
  if (day === addDays(today, -1)) return `Yesterday, ${saTime.format(value)}`;
  return dayMonthTime.format(value);
}

export function toDate(timestamp: Timestamp | undefined): Date | undefined {
  return timestamp ? timestampDate(timestamp) : undefined;
}

const historyFormat = new Intl.DateTimeFormat("en-ZA", {
  day: "2-digit",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hour12: false,
  timeZone: SA_TIME_ZONE,
});

/** The transaction history's date (en-ZA, Johannesburg): 2-digit day, short month, year, hour and minute. */
export function formatHistoryDate(value: Date): string {
  return historyFormat.format(value);
}

const longDateTime = new Intl.DateTimeFormat("en-ZA", {
  day: "numeric",
  month: "long",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hour12: false,
  timeZone: SA_TIME_ZONE,
});

/** A date and time in words, in Johannesburg, e.g. "22 March 2026 at 14:30" (a voucher's expiry). */
export function formatLongDateTime(value: Date): string {
  return longDateTime.format(value);
}

/**
 * When something happened, in Johannesburg time: 'at HH:MM' today, else 'on D MMM at HH:MM'
 * (e.g. when an SMS was delivered).
 */
export function formatSaTimeOfDay(value: Date, now: Date = new Date()): string {
  const at = `at ${saTime.format(value)}`;
  return saDate.format(value) === saDate.format(now) ? at : `on ${saDayMonth.format(value)} ${at}`;
}

const saWeekdayParts = new Intl.DateTimeFormat("en-ZA", {
  weekday: "short",
  day: "numeric",
  month: "short",
  timeZone: SA_TIME_ZONE,
});

/**
 * A day as people say it, in Johannesburg: 'Mon 1 Dec' (a voucher's expiry). Built from the
 * parts: en-ZA's own pattern reads 'Mon, 01 Dec' in some engines.
 */
export function formatSaWeekdayDate(value: Date): string {
  const parts = Object.fromEntries(saWeekdayParts.formatToParts(value).map((part) => [part.type, part.value]));
  return `${parts.weekday} ${Number(parts.day)} ${parts.month}`;
}

/**
 * A moment today as 'HH:MM', another day as 'Mon 1 Dec HH:MM', in Johannesburg time (when the
 * cash was collected).
 */
export function formatSaMoment(value: Date, now: Date = new Date()): string {
  const at = saTime.format(value);
  return saDate.format(value) === saDate.format(now) ? at : `${formatSaWeekdayDate(value)} ${at}`;
}

// Calendar days ("YYYY-MM-DD"), as the transfers service keeps a schedule's dates: South
// African days, whatever the browser's zone.

/** Today in Johannesburg, "YYYY-MM-DD". */
export function saToday(now: Date = new Date()): string {
  return saDate.format(now);
}

function parseDay(day: string): { y: number; m: number; d: number } | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  return { y: Number(match[1]), m: Number(match[2]), d: Number(match[3]) };
}

function dayText(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

/** day plus n calendar days (UTC arithmetic: a calendar day has no zone). */
export function addDays(day: string, n: number): string {
  const p = parseDay(day);
  if (!p) return day;
  const t = new Date(Date.UTC(p.y, p.m - 1, p.d + n));
  return dayText(t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate());
}

/**
 * day plus n months on the same day of the month, clamped to the month's last day (31 Jan → 28
 * or 29 Feb), as the transfers service counts a monthly schedule.
 */
export function addMonths(day: string, n: number): string {
  const p = parseDay(day);
  if (!p) return day;
  const index = p.y * 12 + (p.m - 1) + n;
  const y = Math.floor(index / 12);
  const m = (index % 12) + 1;
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return dayText(y, m, Math.min(p.d, last));
}

const dayWords = new Intl.DateTimeFormat("en-ZA", { weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });

/** A calendar day in words: 'Fri 4 Dec 2026'; the text itself when it is not a day. */
export function formatDay(day: string): string {
  const p = parseDay(day);
  if (!p) return day;
  const parts = Object.fromEntries(dayWords.formatToParts(new Date(Date.UTC(p.y, p.m - 1, p.d))).map((x) => [x.type, x.value]));
  return `${parts.weekday} ${Number(parts.day)} ${parts.month} ${parts.year}`;
}
