import { describe, expect, it } from "vitest";
import { centsToDecimal, formatMoney, formatSignedMoney, parseRandToCents } from "./money";

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
    ["90071992547409.93", 9007199254740993n],
  ])("reads %j as %s cents", (text, cents) => {
    expect(parseRandToCents(text)).toBe(cents);
  });

  it("never goes through a float (0.1 + 0.2 style errors cannot happen)", () => {
    expect(parseRandToCents("1.10")).toBe(110n);
    expect(parseRandToCents("19.99")).toBe(1999n);
    expect(parseRandToCents("4.35")).toBe(435n);
  });

  it.each(["", " ", ".", "-5", "1.234", "1e3", "abc", "1,50", "1.2.3", "R150"])("refuses %j", (text) => {
    expect(parseRandToCents(text)).toBeUndefined();
  });
});
