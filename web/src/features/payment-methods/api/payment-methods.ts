import { createConnectQueryKey, useMutation, useQuery } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { CardBrand, PaymentMethodsService } from "@/gen/thumela/bff/v1/bff_pb";
import type { PaymentMethod } from "@/gen/thumela/bff/v1/bff_pb";
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
 * The card form. Every field is required (the CVV only when adding); a missing one is reported
 * as a whole by the 'Missing fields' toast. The server validates the number (Luhn, brand),
 * the expiry and the CVV and says what is wrong.
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

export function cardSchema(mode: CardFormMode) {
  return cardFields.superRefine((values, ctx) => {
    if (mode === "edit") return; // the number, expiry and CVV are locked
    for (const field of ["cardNumber", "expiryMonth", "expiryYear", "cvv"] as const) {
      if (!values[field].trim()) ctx.addIssue({ code: "custom", path: [field], message: MISSING_FIELDS_MESSAGE });
    }
  });
}
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
