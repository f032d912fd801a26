import { z } from "zod";
import { parseRandToCents } from "@/lib/money";
import { presetRecipient } from "../lib/preset-recipients";

/** The spec's messages, verbatim (section 5 and 8). */
export const MESSAGES = {
  invalidAmount: { title: "Invalid amount", description: "Please enter a valid amount greater than zero." },
  missingRecipient: { title: "Missing information", description: "Please fill in all recipient details." },
  missingPaymentMethod: { title: "Select payment method", description: "Please select a card to continue." },
  incomplete: "Please complete all required fields",
  transferFailed: "Transaction failed",
  transferFailedFallback: "There was a problem processing your transfer.",
  initiated: { title: "Transfer initiated", description: "Your money transfer is being processed." },
  cardAdded: "Card added successfully",
} as const;

export const WIZARD_STEPS = [
  { id: "amount", label: "Amount" },
  { id: "recipient", label: "Recipient" },
  { id: "payment", label: "Payment" },
  { id: "confirmation", label: "Confirmation" },
] as const;

export type WizardStep = 1 | 2 | 3 | 4;

/** The transfer form (spec section 3): amount as typed rand text, bank as the enum's number. */
export const sendMoneySchema = z.object({
  amount: z.string().refine((value) => (parseRandToCents(value) ?? 0n) > 0n, MESSAGES.invalidAmount.description),
  recipientName: z.string().trim().min(1, MESSAGES.missingRecipient.description),
  recipientPhone: z.string().trim().min(1, MESSAGES.missingRecipient.description),
  bank: z.string().regex(/^[1-9]\d*$/, MESSAGES.missingRecipient.description),
  paymentMethodId: z.string().min(1, MESSAGES.missingPaymentMethod.description),
});
export type SendMoneyValues = z.infer<typeof sendMoneySchema>;

/** The fields each step checks before Next; the confirmation step checks them all. */
export const STEP_FIELDS: Record<1 | 2 | 3, Array<keyof SendMoneyValues>> = {
  1: ["amount"],
  2: ["recipientName", "recipientPhone", "bank"],
  3: ["paymentMethodId"],
};

export const STEP_MESSAGES = {
  1: MESSAGES.invalidAmount,
  2: MESSAGES.missingRecipient,
  3: MESSAGES.missingPaymentMethod,
} as const;

export interface WithdrawalLocationInit {
  name: string;
  type: "param" | "default";
}

export const DEFAULT_LOCATION: WithdrawalLocationInit = { name: "Nearest ATM", type: "default" };

export const EMPTY_VALUES: SendMoneyValues = {
  amount: "",
  recipientName: "",
  recipientPhone: "",
  bank: "",
  paymentMethodId: "",
};

/**
 * The wizard's starting values from the query string: amount (rand, "150" or "150.50"),
 * recipient (a name, or one of the preset keys that fills name and phone), phone and location.
 * An amount that is not a valid rand amount is left out rather than half-used.
 */
export function prefillFromSearch(params: URLSearchParams): {
  values: SendMoneyValues;
  location: WithdrawalLocationInit;
} {
  const amountText = params.get("amount")?.trim() ?? "";
  const amount = amountText && parseRandToCents(amountText) !== undefined ? amountText : "";
  const recipient = params.get("recipient")?.trim() ?? "";
  const preset = presetRecipient(recipient);
  const phone = params.get("phone")?.trim() ?? "";
  const location = params.get("location")?.trim() ?? "";
  return {
    values: {
      ...EMPTY_VALUES,
      amount,
      recipientName: preset ? preset.name : recipient,
      recipientPhone: phone || preset?.phone || "",
    },
    location: location ? { name: location, type: "param" } : DEFAULT_LOCATION,
  };
}

/** A fresh idempotency key: one per wizard run, reused when the same request is retried. */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}
