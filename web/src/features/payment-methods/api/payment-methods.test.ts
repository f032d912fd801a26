import { describe, expect, it } from "vitest";
import {
  CARD_MESSAGES,
  MISSING_FIELDS_MESSAGE,
  acceptedBrand,
  cardNumberProblem,
  cardSchema,
  cvvProblem,
  expiryProblem,
  luhnValid,
} from "./payment-methods";
import type { CardFormValues } from "./payment-methods";

// 15:00 on 15 June 2026 in Johannesburg.
const JUNE_2026 = new Date("2026-06-15T15:00:00+02:00");

describe("luhnValid", () => {
  it.each(["4242424242424242", "5555555555554444", "4000000000000002", "2223003122003222", "79927398713"])("accepts %s", (digits) => {
    expect(luhnValid(digits)).toBe(true);
  });

  it.each(["4242424242424241", "5555555555554440", "79927398710", "", "4", "4242 4242"])("refuses %j", (digits) => {
    expect(luhnValid(digits)).toBe(false);
  });
});

describe("acceptedBrand", () => {
  it.each(["4242424242424242", "5100000000000000", "5599999999999999", "2221000000000000", "2720999999999999"])("accepts %s", (digits) => {
    expect(acceptedBrand(digits)).toBe(true);
  });

  // Amex, Diners, Discover, JCB, and the ranges either side of Mastercard's.
  it.each(["378282246310005", "3056930009020004", "6011111111111117", "3530111333300000", "5000000000000000", "5600000000000000", "2220999999999999", "2721000000000000"])(
    "refuses %s",
    (digits) => {
      expect(acceptedBrand(digits)).toBe(false);
    },
  );
});

describe("cardNumberProblem", () => {
  it("accepts a 16-digit Luhn-valid Visa or Mastercard, grouped or not", () => {
    expect(cardNumberProblem("4242 4242 4242 4242")).toBeUndefined();
    expect(cardNumberProblem("5555555555554444")).toBeUndefined();
  });

  it("says what is wrong in the server's words and order: length, brand, check digit", () => {
    expect(cardNumberProblem("4242 4242 4242 424")).toBe(CARD_MESSAGES.numberLength);
    expect(cardNumberProblem("6011 1111 1111 1117")).toBe(CARD_MESSAGES.brand);
    expect(cardNumberProblem("6011 1111 1111 1118")).toBe(CARD_MESSAGES.brand);
    expect(cardNumberProblem("4242 4242 4242 4241")).toBe(CARD_MESSAGES.numberInvalid);
  });
});

describe("expiryProblem", () => {
  it("accepts this month and later, in South Africa's calendar", () => {
    expect(expiryProblem("06", "2026", JUNE_2026)).toBeUndefined();
    expect(expiryProblem("01", "2027", JUNE_2026)).toBeUndefined();
    // 23:30 UTC on 31 May is already 1 June in Johannesburg: May's cards have expired there.
    expect(expiryProblem("05", "2026", new Date("2026-05-31T23:30:00Z"))).toEqual({ field: "expiryYear", message: CARD_MESSAGES.expired });
  });

  it("refuses a past month or year as expired", () => {
    expect(expiryProblem("05", "2026", JUNE_2026)).toEqual({ field: "expiryYear", message: CARD_MESSAGES.expired });
    expect(expiryProblem("12", "2025", JUNE_2026)).toEqual({ field: "expiryYear", message: CARD_MESSAGES.expired });
  });

  it.each(["00", "13", "1a", ""])("refuses month %j", (month) => {
    expect(expiryProblem(month, "2027", JUNE_2026)).toEqual({ field: "expiryMonth", message: CARD_MESSAGES.month });
  });

  it("refuses a year that is not four digits", () => {
    expect(expiryProblem("08", "27", JUNE_2026)).toEqual({ field: "expiryYear", message: CARD_MESSAGES.year });
  });
});

describe("cvvProblem", () => {
  it("wants exactly 3 digits (Visa and Mastercard only: no 4-digit Amex codes)", () => {
    expect(cvvProblem("123")).toBeUndefined();
    for (const cvv of ["12", "1234", "12a"]) expect(cvvProblem(cvv)).toBe(CARD_MESSAGES.cvv);
  });
});

describe("cardSchema", () => {
  const card: CardFormValues = {
    name: "Travel card",
    cardNumber: "4242 4242 4242 4242",
    expiryMonth: "08",
    expiryYear: "2027",
    cvv: "123",
    isDefault: false,
  };
  const issues = (mode: "add" | "edit", values: Partial<CardFormValues>) => {
    const result = cardSchema(mode, () => JUNE_2026).safeParse({ ...card, ...values });
    return result.success ? {} : Object.fromEntries(result.error.issues.map((issue) => [issue.path.join("."), issue.message]));
  };

  it("passes a good card", () => {
    expect(issues("add", {})).toEqual({});
  });

  it("says 'missing' for empty fields and nothing more about them", () => {
    expect(issues("add", { cardNumber: "", cvv: "" })).toEqual({ cardNumber: MISSING_FIELDS_MESSAGE, cvv: MISSING_FIELDS_MESSAGE });
  });

  it("says what is wrong with each filled-in field", () => {
    expect(issues("add", { cardNumber: "4242 4242 4242 4241", expiryMonth: "13", cvv: "12" })).toEqual({
      cardNumber: CARD_MESSAGES.numberInvalid,
      expiryMonth: CARD_MESSAGES.month,
      cvv: CARD_MESSAGES.cvv,
    });
    expect(issues("add", { expiryMonth: "05", expiryYear: "2026" })).toEqual({ expiryYear: CARD_MESSAGES.expired });
  });

  it("checks only the name when editing (the rest is locked)", () => {
    expect(issues("edit", { cardNumber: "•••• •••• •••• 4242", cvv: "", expiryYear: "2020" })).toEqual({});
    expect(issues("edit", { name: " " })).toEqual({ name: MISSING_FIELDS_MESSAGE });
  });
});
