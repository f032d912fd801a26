import { describe, expect, it } from "vitest";
import { formatHistoryDate, formatLongDateTime, formatRecentDate, formatSaMoment, formatSaTimeOfDay, formatSaWeekdayDate } from "./date";

// Johannesburg is UTC+2 all year (no daylight saving): the instants below are written with
// their offset, so the tests read the same in any browser zone.
describe("formatRecentDate", () => {
  const now = new Date("2026-03-15T18:00:00+02:00");

  it("says Today and Yesterday with the time, in Johannesburg", () => {
    expect(formatRecentDate(new Date("2026-03-15T09:05:00+02:00"), now)).toBe("Today, 09:05");
    expect(formatRecentDate(new Date("2026-03-14T23:59:00+02:00"), now)).toBe("Yesterday, 23:59");
    // 22:30 UTC on the 14th is 00:30 on the 15th in Johannesburg: today there.
    expect(formatRecentDate(new Date("2026-03-14T22:30:00Z"), now)).toBe("Today, 00:30");
  });

  it("shows day, short month and time for older dates", () => {
    const text = formatRecentDate(new Date("2026-03-01T14:30:00+02:00"), now);
    expect(text).toMatch(/^0?1 Mar/);
    expect(text).toMatch(/14:30$/);
  });
});

describe("formatHistoryDate", () => {
  it("shows a 2-digit day, short month, year and 2-digit hour and minute (en-ZA, Johannesburg)", () => {
    expect(formatHistoryDate(new Date("2026-03-05T09:07:00+02:00"))).toBe("05 Mar 2026, 09:07");
    expect(formatHistoryDate(new Date("2026-03-04T23:07:00Z"))).toBe("05 Mar 2026, 01:07");
  });
});

describe("formatLongDateTime", () => {
  it("writes the month in words, in Johannesburg", () => {
    expect(formatLongDateTime(new Date("2026-03-22T14:30:00+02:00"))).toMatch(/^22 March 2026.*14:30$/);
    expect(formatLongDateTime(new Date("2026-03-21T22:30:00Z"))).toMatch(/^22 March 2026.*00:30$/);
  });
});

describe("formatSaTimeOfDay", () => {
  it("tells the time in Johannesburg, with the day when it was not today there", () => {
    const now = new Date("2026-03-14T12:00:00Z"); // 14:00 in Johannesburg
    expect(formatSaTimeOfDay(new Date("2026-03-14T11:12:00Z"), now)).toBe("at 13:12");
    // 23:30 UTC on the 13th is already 01:30 on the 14th in Johannesburg.
    expect(formatSaTimeOfDay(new Date("2026-03-13T23:30:00Z"), now)).toBe("at 01:30");
    expect(formatSaTimeOfDay(new Date("2026-03-12T08:05:00Z"), now)).toBe("on 12 Mar at 10:05");
  });
});

describe("formatSaWeekdayDate and formatSaMoment (Johannesburg)", () => {
  it("writes 'Mon 1 Dec' whatever the browser's zone", () => {
    expect(formatSaWeekdayDate(new Date("2025-12-01T10:00:00Z"))).toBe("Mon 1 Dec");
    // 23:30 UTC on Sunday is 01:30 on Monday in Johannesburg.
    expect(formatSaWeekdayDate(new Date("2025-11-30T23:30:00Z"))).toBe("Mon 1 Dec");
  });

  it("is the time today, and the day with the time before", () => {
    const at = new Date("2025-12-01T11:15:00Z");
    expect(formatSaMoment(at, new Date("2025-12-01T20:00:00Z"))).toBe("13:15");
    expect(formatSaMoment(at, new Date("2025-12-02T08:00:00Z"))).toBe("Mon 1 Dec 13:15");
  });
});

describe("calendar days", () => {
  it("today in Johannesburg, whatever the browser's zone", async () => {
    const { saToday } = await import("./date");
    // 23:30 UTC on 27 Nov is 01:30 on 28 Nov in Johannesburg (UTC+2).
    expect(saToday(new Date(Date.UTC(2026, 10, 27, 23, 30)))).toBe("2026-11-28");
    expect(saToday(new Date(Date.UTC(2026, 10, 27, 21, 59)))).toBe("2026-11-27");
  });

  it("adds days and months, a month clamped to its last day", async () => {
    const { addDays, addMonths } = await import("./date");
    expect(addDays("2026-12-28", 7)).toBe("2027-01-04");
    expect(addMonths("2026-01-31", 1)).toBe("2026-02-28");
    expect(addMonths("2028-01-31", 1)).toBe("2028-02-29");
    expect(addMonths("2026-12-15", 1)).toBe("2027-01-15");
  });

  it("says a day in words", async () => {
    const { formatDay } = await import("./date");
    expect(formatDay("2026-12-04")).toBe("Fri 4 Dec 2026");
    expect(formatDay("not a day")).toBe("not a day");
  });
});
