import { createConnectQueryKey, useMutation, useQuery } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { CardBrand, PaymentMethodsService } from "@/gen/thumela/bff/v1/bff_pb";
import type { PaymentMethod } from "@/gen/thumela/bff/v1/bff_pb";
import { saToday } from "@/lib/date";
import { z } from "@/lib/zod";

const service = PaymentMethodsService.method;

export const CARD_NUMBER_DIGITS = 16;
/** 16 digits in four groups of four, with three spaces. */
export const CARD_NUMBER_MAX_LENGTH = 19;
export const CVV_DIGITS = 3;
export const EXPIRY_YEARS_SHOWN = 10;

export const MISSING_FIELDS_TITLE = "Missing fields";
export const MISSING_FIELDS_MESSAGE = "Please fill in all required fields.";
export const SAVE_FAILURE_FALLBACK = "Failed to save payment method. Please try again.";
export const TOKENIZE_FAILURE_FALLBACK = "Card tokenization failed";

/** Digits only, at most 16, grouped in fours: "4242424242424242" → "4242 4242 4242 4242". */
export function formatCardNumber(value: string): string {
  const digits = value.replace(/\D/g, "").slice(0, CARD_NUMBER_DIGITS);
  return digits.replace(/(\d{4})(?=\d)/g, "$1 ");
}

/** Digits only, at most 3. */
export function sanitizeCvv(value: string): string {
  return value.replace(/\D/g, "").slice(0, CVV_DIGITS);
}

/** "01" … "12". */
export const EXPIRY_MONTHS = Array.from({ length: 12 }, (_, index) => String(index + 1).padStart(2, "0"));

/** This year and the next nine: the value is the full year, the label its last two digits. */
export function expiryYears(now: Date = new Date()): Array<{ value: string; label: string }> {
  const first = now.getFullYear();
  return Array.from({ length: EXPIRY_YEARS_SHOWN }, (_, index) => {
    const year = first + index;
    return { value: String(year), label: twoDigits(year) };
  });
}

function twoDigits(value: number): string {
  return String(value % 100).padStart(2, "0");
}

/** The stored year has four digits; tolerate two. */
export function fullYear(year: number): number {
  return year > 0 && year < 100 ? 2000 + year : year;
}

/** "MM/YY", as the cards show it. */
export function formatExpiry(method: Pick<PaymentMethod, "expiryMonth" | "expiryYear">): string {
  return `${String(method.expiryMonth).padStart(2, "0")}/${twoDigits(fullYear(method.expiryYear))}`;
}

export function maskedLastFour(lastFour: string): string {
  return `•••• ${lastFour}`;
}

export function maskedCardNumber(lastFour: string): string {
  return `•••• •••• •••• ${lastFour}`;
}

export const BRAND_LABEL: Record<CardBrand, string> = {
  [CardBrand.UNSPECIFIED]: "Card",
  [CardBrand.VISA]: "Visa",
  [CardBrand.MASTERCARD]: "Mastercard",
};

/**
 * Why a card is refused, in the paymentmethods service's own words (its domain.ValidateCard):
 * the form says what the server would, before a typo costs the sender one of the AddCard
 * attempts the BFF allows per account and hour.
 */
export const CARD_MESSAGES = {
  numberLength: "Card number must be 16 digits",
  brand: "Only Visa and Mastercard cards are accepted",
  numberInvalid: "Card number is invalid. Please check it and try again.",
  month: "Expiry month must be between 01 and 12",
  year: "Expiry year is invalid",
  expired: "This card has expired.",
  cvv: "CVV must be 3 digits",
} as const;

/** The Luhn check digit is right (digits only, at least two). */
export function luhnValid(digits: string): boolean {
  if (!/^\d{2,}$/.test(digits)) return false;
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Visa (4…) or Mastercard (51–55…, 2221–2720…), the only cards Thumela accepts (DECISIONS.md). */
export function acceptedBrand(digits: string): boolean {
  if (!/^\d{4}/.test(digits)) return false;
  if (digits.startsWith("4")) return true;
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  return (two >= 51 && two <= 55) || (four >= 2221 && four <= 2720);
}

/** What is wrong with a card number (spaces allowed), in the server's order; undefined if nothing. */
export function cardNumberProblem(number: string): string | undefined {
  const digits = number.replace(/\s/g, "");
  if (digits.length !== CARD_NUMBER_DIGITS || !/^\d+$/.test(digits)) return CARD_MESSAGES.numberLength;
  if (!acceptedBrand(digits)) return CARD_MESSAGES.brand;
  if (!luhnValid(digits)) return CARD_MESSAGES.numberInvalid;
  return undefined;
}

/**
 * What is wrong with an expiry ("08", "2030"); undefined if nothing. A card is valid to the end
 * of its month in South Africa, as the server counts it, whatever the browser's zone.
 */
export function expiryProblem(month: string, year: string, now: Date = new Date()): { field: "expiryMonth" | "expiryYear"; message: string } | undefined {
  const m = Number(month);
  if (!/^\d{1,2}$/.test(month) || m < 1 || m > 12) return { field: "expiryMonth", message: CARD_MESSAGES.month };
  if (!/^\d{4}$/.test(year)) return { field: "expiryYear", message: CARD_MESSAGES.year };
  const [thisYear, thisMonth] = saToday(now).split("-").map(Number);
  const y = Number(year);
  if (y < thisYear || (y === thisYear && m < thisMonth)) return { field: "expiryYear", message: CARD_MESSAGES.expired };
  return undefined;
}

/** 3 digits: Visa and Mastercard (the only cards accepted) print a 3-digit CVV. */
export function cvvProblem(cvv: string): string | undefined {
  return cvv.length === CVV_DIGITS && /^\d+$/.test(cvv) ? undefined : CARD_MESSAGES.cvv;
}

/**
 * The card form. Every field is required (the CVV only when adding); a missing one is reported
 * as a whole by the 'Missing fields' toast. A filled-in number, expiry or CVV is checked as the
 * paymentmethods service checks it (Luhn, brand, length, month, not expired) and refused under
 * its field in the server's words; the server still checks everything again.
 */
const cardFields = z.object({
  name: z.string().trim().min(1, MISSING_FIELDS_MESSAGE),
  cardNumber: z.string(),
  expiryMonth: z.string(),
  expiryYear: z.string(),
  cvv: z.string(),
  isDefault: z.boolean(),
});

export type CardFormMode = "add" | "edit";

export function cardSchema(mode: CardFormMode, now: () => Date = () => new Date()) {
  return cardFields.superRefine((values, ctx) => {
    if (mode === "edit") return; // the number, expiry and CVV are locked
    const refuse = (field: keyof CardFormValues, message: string) => ctx.addIssue({ code: "custom", path: [field], message });
    const filled = (field: "cardNumber" | "expiryMonth" | "expiryYear" | "cvv") => values[field].trim() !== "";
    for (const field of ["cardNumber", "expiryMonth", "expiryYear", "cvv"] as const) {
      if (!filled(field)) refuse(field, MISSING_FIELDS_MESSAGE);
    }
    const number = filled("cardNumber") ? cardNumberProblem(values.cardNumber) : undefined;
    if (number) refuse("cardNumber", number);
    const expiry = filled("expiryMonth") && filled("expiryYear") ? expiryProblem(values.expiryMonth, values.expiryYear, now()) : undefined;
    if (expiry) refuse(expiry.field, expiry.message);
    const cvv = filled("cvv") ? cvvProblem(values.cvv) : undefined;
    if (cvv) refuse("cvv", cvv);
  });
}

/** The form field a server's field violation (AddCardRequest's field names) belongs to. */
export const VIOLATION_FIELDS: Record<string, keyof CardFormValues> = {
  name: "name",
  card_number: "cardNumber",
  expiry_month: "expiryMonth",
  expiry_year: "expiryYear",
  cvv: "cvv",
};

export type CardFormValues = z.infer<typeof cardFields>;

export function usePaymentMethods() {
  return useQuery(service.listPaymentMethods, {});
}

function useInvalidateList() {
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries({
      queryKey: createConnectQueryKey({ schema: service.listPaymentMethods, cardinality: undefined }),
    });
}

export function useAddCard() {
  const invalidate = useInvalidateList();
  return useMutation(service.addCard, { onSuccess: invalidate });
}

export function useUpdatePaymentMethod() {
  const invalidate = useInvalidateList();
  return useMutation(service.updatePaymentMethod, { onSuccess: invalidate });
}

export function useSetDefaultPaymentMethod() {
  const invalidate = useInvalidateList();
  return useMutation(service.setDefaultPaymentMethod, { onSuccess: invalidate });
}

export function useDeletePaymentMethod() {
  const invalidate = useInvalidateList();
  return useMutation(service.deletePaymentMethod, { onSuccess: invalidate });
}
