import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampDate } from "@bufbuild/protobuf/wkt";

const time = new Intl.DateTimeFormat("en-ZA", { hour: "2-digit", minute: "2-digit", hour12: false });
const dayMonthTime = new Intl.DateTimeFormat("en-ZA", {
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
  hour12: false,
});

function sameDay(a: Date, b: Date): boolean {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}

/** 'Today, HH:MM', 'Yesterday, HH:MM', otherwise day, short month and time (en-ZA). */
export function formatRecentDate(value: Date, now: Date = new Date()): string {
  const yesterday = new Date(now);
  yesterday.setDate(now.getDate() - 1);
  if (sameDay(value, now)) return `Today, ${time.format(value)}`;
  if (sameDay(value, yesterday)) return `Yesterday, ${time.format(value)}`;
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
});

/** The transaction history's date: en-ZA, 2-digit day, short month, year, 2-digit hour and minute. */
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
});

/** A date and time in words, e.g. "22 March 2026 at 14:30" (a voucher's expiry). */
export function formatLongDateTime(value: Date): string {
  return longDateTime.format(value);
}

// Thumela's clock is South Africa's (DECISIONS.md): a time told to the sender is Johannesburg
// time whatever the browser's zone.
export const SA_TIME_ZONE = "Africa/Johannesburg";
const saTime = new Intl.DateTimeFormat("en-ZA", { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: SA_TIME_ZONE });
const saDayMonth = new Intl.DateTimeFormat("en-ZA", { day: "numeric", month: "short", timeZone: SA_TIME_ZONE });
const saDate = new Intl.DateTimeFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", timeZone: SA_TIME_ZONE });

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
