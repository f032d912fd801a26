import { describe, expect, it } from "vitest";
import { centsToDecimal, formatMoney, formatSignedMoney, parseRandToCents, randAmountIssue } from "./money";

// en-ZA groups thousands with a no-break space and uses a decimal comma.
const nbsp = "\u00a0";

describe("formatMoney", () => {
  it.each([
    [0n, "R0,00"],
    [5n, "R0,05"],
    [100n, "R1,00"],
    [123456n, `R1${nbsp}234,56`],
    [300000, `R3${nbsp}000,00`],
    [10000000000n, `R100${nbsp}000${nbsp}000,00`],
  ])("formats %s cents as %s", (cents, expected) => {
    expect(formatMoney(cents)).toBe(expected);
  });

  it("puts the minus sign before the R", () => {
    expect(formatMoney(-1050n)).toBe("-R10,50");
  });

  it("stays exact beyond the float range", () => {
    expect(centsToDecimal(9007199254740993n)).toBe("90071992547409.93");
  });

  it("refuses fractional cents", () => {
    expect(() => formatMoney(1.5)).toThrow(RangeError);
  });
});

describe("formatSignedMoney", () => {
  it("marks money going out with a minus and money coming in with a plus", () => {
    expect(formatSignedMoney(5000n, "out")).toBe("-R50,00");
    expect(formatSignedMoney(5000n, "in")).toBe("+R50,00");
    expect(formatSignedMoney(-5000n, "out")).toBe("-R50,00");
  });
});

describe("centsToDecimal", () => {
  it("writes a dot-decimal for URLs", () => {
    expect(centsToDecimal(123456n)).toBe("1234.56");
    expect(centsToDecimal(7n)).toBe("0.07");
    expect(centsToDecimal(-7n)).toBe("-0.07");
  });
});

describe("parseRandToCents", () => {
  it.each([
    ["150", 15000n],
    ["150.5", 15050n],
    ["150.50", 15050n],
    ["0.07", 7n],
    [".75", 75n],
    ["150.", 15000n],
    [" 20 ", 2000n],
    ["0", 0n],
    ["0150", 15000n],
    ["90071992547409.93", 9007199254740993n],
  ])("reads %j as %s cents", (text, cents) => {
    expect(parseRandToCents(text)).toBe(cents);
  });

  // As en-ZA writes amounts (formatMoney's own output, without the R), and as people type them.
  it.each([
    ["1 500", 150000n],
    ["12 000", 1200000n],
    ["1 500 000", 150000000n],
    [`1${nbsp}500`, 150000n],
    [`1${nbsp}500${nbsp}000`, 150000000n],
    ["1\u202f500", 150000n],
    ["1 500.50", 150050n],
    ["1 500.", 150000n],
    ["1 500,50", 150050n],
    [`1${nbsp}234,56`, 123456n],
    [" 1 500 ", 150000n],
    [`${nbsp}1 500${nbsp}`, 150000n],
  ])("reads %j, thousands grouped by spaces, as %s cents", (text, cents) => {
    expect(parseRandToCents(text)).toBe(cents);
  });

  it.each([
    ["1,500", 150000n],
    ["12,000", 1200000n],
    ["100,000", 10000000n],
    ["150,505", 15050500n],
    ["1,500,000", 150000000n],
    ["1,500.50", 150050n],
    ["1,500.5", 150050n],
    ["1,500.", 150000n],
  ])("reads %j, thousands grouped by commas, as %s cents", (text, cents) => {
    expect(parseRandToCents(text)).toBe(cents);
  });

  it.each([
    ["150,5", 15050n],
    ["150,50", 15050n],
    ["1,50", 150n],
    ["0,07", 7n],
    [",75", 75n],
    ["1500,00", 150000n],
  ])("reads %j, a decimal comma, as %s cents", (text, cents) => {
    expect(parseRandToCents(text)).toBe(cents);
  });

  it("takes a comma and 3 digits as thousands, a comma and 1 or 2 digits as the decimals", () => {
    expect(parseRandToCents("1,500")).toBe(150000n);
    expect(parseRandToCents("1,50")).toBe(150n);
    expect(parseRandToCents("1,5")).toBe(150n);
  });

  it("never goes through a float (0.1 + 0.2 style errors cannot happen)", () => {
    expect(parseRandToCents("1.10")).toBe(110n);
    expect(parseRandToCents("19.99")).toBe(1999n);
    expect(parseRandToCents("4.35")).toBe(435n);
    expect(parseRandToCents("4,35")).toBe(435n);
    expect(parseRandToCents("90 071 992 547 409,93")).toBe(9007199254740993n);
    expect(parseRandToCents("90,071,992,547,409.93")).toBe(9007199254740993n);
  });

  // The amount field shows an R before what is typed and the page writes amounts "R150,00": the
  // sign typed or pasted with the amount is read, not refused.
  it.each([
    ["R150", 15000n],
    ["r150", 15000n],
    ["R 150", 15000n],
    ["r 150", 15000n],
    ["R150,00", 15000n],
    ["R 1 500,00", 150000n],
    [`R1${nbsp}234,56`, 123456n],
    [formatMoney(300000n), 300000n],
    [`R${nbsp}150`, 15000n],
    ["R1,500.50", 150050n],
    [" R150 ", 15000n],
    ["R0", 0n],
  ])("reads %j, with the rand sign, as %s cents", (text, cents) => {
    expect(parseRandToCents(text)).toBe(cents);
  });

  it.each(["", " ", ".", ",", "-5", "1.234", "1e3", "abc", "1.2.3", "+150", "0x10"])("refuses %j", (text) => {
    expect(parseRandToCents(text)).toBeUndefined();
  });

  it.each([
    // Groups not in threes, or a separator with nothing on one side.
    "15 00",
    "1 5000",
    "1  500",
    "1 500 00",
    "1 500 5",
    "1,5000",
    "1,50,0",
    "15,00,000",
    "1,500,",
    ",500",
  ])("refuses %j (a group not in threes)", (text) => {
    expect(parseRandToCents(text)).toBeUndefined();
  });

  it.each([
    // A grouped amount after a leading zero.
    "0,500",
    "01,500",
    "0 500",
    "00 500",
    // 3 decimals, after a comma group or a space group.
    "1,500.505",
    "1 500,505",
    // Two commas: thousands and decimals cannot both be commas.
    "1,500,50",
    "1,500,5",
    // A comma after dot decimals, or a trailing comma.
    "150.50,5",
    "150,",
    "1 500,",
    // Spaces and commas mixed as group separators.
    "1 500,000",
    "1,500 000",
    // Dot thousands with a decimal comma (European), or a dot and then a comma.
    "1.500,50",
    "1.500",
    // Space before the decimal separator, or between the digits of a decimal.
    "1500 ,50",
    "1500, 50",
    "150 .50",
    "150. 5",
  ])("refuses %j (ambiguous or malformed)", (text) => {
    expect(parseRandToCents(text)).toBeUndefined();
  });
});

describe("randAmountIssue", () => {
  it.each(["150", "R150", "r 1 500,00", "0,07"])("has nothing against %j", (text) => {
    expect(randAmountIssue(text)).toBeUndefined();
  });

  // What the spec's 'Please enter a valid amount greater than zero.' says: missing, or not above zero.
  it.each(["", "  ", "R", "r ", "0", "0,00", "R0,00", "-5", "-R50", "\u2212150,00", "- 1 500"])("%j is missing or not above zero", (text) => {
    expect(randAmountIssue(text)).toBe("notAboveZero");
  });

  // Not a question of zero: text that is not rand as anyone writes it.
  it.each(["abc", "1.234", "15 00", "1,500,50", "150R", "RR150", "R-50", "+150", "R abc", "-abc"])("%j is unreadable", (text) => {
    expect(randAmountIssue(text)).toBe("unreadable");
  });
});
