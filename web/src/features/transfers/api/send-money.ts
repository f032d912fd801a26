import { parseRandToCents, randAmountIssue, withoutRandSign } from "@/lib/money";
import { RECIPIENT_NAME_NO_LETTER, hasHiddenCharacter, hasWebAddress, nameIssue } from "@/lib/person-name";
import { INVALID_MOBILE, phoneForField, saMobileE164 } from "@/lib/phone";
import { z } from "@/lib/zod";
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

/**
 * The amount rules beyond the spec's (DECISIONS.md): ATMs pay out notes, so the amount is whole
 * rand in multiples of R10. The limits are the server's figures (GetLimits), never a copy: the
 * amount step's meter shows them, its Next refuses in the server's words what the server would
 * refuse (lib/limit-check.ts), and the server still decides.
 */
export const AMOUNT_MESSAGES = {
  notes: "ATMs pay out notes: choose an amount in multiples of R10.",
  /**
   * Text that is not rand as anyone writes it ("abc", "1.234"): not the spec's "greater than
   * zero", which is kept for a missing amount and one of zero or less (spec section 5).
   */
  unreadable: "We can't read that amount. Enter it in rand, such as 150 or 1 500.",
} as const;

/** The smallest note ATMs pay out, in cents: every amount is a multiple of it. */
export const NOTE_CENTS = 1_000n;

/** Why an amount typed in the wizard cannot be sent; undefined when it can. */
export function amountProblem(text: string): string | undefined {
  const issue = randAmountIssue(text);
  if (issue === "notAboveZero") return MESSAGES.invalidAmount.description;
  if (issue === "unreadable") return AMOUNT_MESSAGES.unreadable;
  const cents = parseRandToCents(text) ?? 0n;
  if (cents % NOTE_CENTS !== 0n) return AMOUNT_MESSAGES.notes;
  return undefined;
}

/**
 * A PIN the sender chooses and gives the recipient themselves: 4 digits, not 4 equal digits and
 * not a run up or down (the transfers service refuses the same).
 */
export const PIN_MESSAGES = {
  format: "Enter 4 digits for the PIN.",
  equal: "The PIN can't be 4 equal digits, such as 1111.",
  run: "The PIN can't be a run of digits, such as 1234 or 4321.",
} as const;

export function senderPinProblem(pin: string): string | undefined {
  if (!/^\d{4}$/.test(pin)) return PIN_MESSAGES.format;
  const steps = [1, 2, 3].map((i) => pin.charCodeAt(i) - pin.charCodeAt(i - 1));
  if (steps.every((d) => d === 0)) return PIN_MESSAGES.equal;
  if (steps.every((d) => d === 1) || steps.every((d) => d === -1)) return PIN_MESSAGES.run;
  return undefined;
}

export const WIZARD_STEPS = [
  { id: "amount", label: "Amount" },
  { id: "recipient", label: "Recipient" },
  { id: "payment", label: "Payment" },
  { id: "confirmation", label: "Confirmation" },
] as const;

export type WizardStep = 1 | 2 | 3 | 4;

/**
 * The transfer form (spec section 3): amount as typed rand text, bank as the enum's number;
 * ownPin and senderPin are the option of a PIN only the sender knows.
 */
export const sendMoneySchema = z
  .object({
    amount: z.string().superRefine((value, ctx) => {
      const problem = amountProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
    // Empty is the spec's 'Missing information'; a name the server's rule refuses (a character
    // outside it, no letter, a web address: lib/person-name) is refused here, in its words.
    recipientName: z
      .string()
      .trim()
      .min(1, MESSAGES.missingRecipient.description)
      .superRefine(nameIssue(RECIPIENT_NAME_NO_LETTER)),
    // Empty is the spec's 'Missing information'; a number the transfers service would refuse
    // (it reads the same notations, see lib/phone) is refused here, in its words.
    recipientPhone: z.string().superRefine((value, ctx) => {
      if (!value.trim()) ctx.addIssue({ code: "custom", message: MESSAGES.missingRecipient.description });
      else if (saMobileE164(value) === undefined) ctx.addIssue({ code: "custom", message: INVALID_MOBILE });
    }),
    bank: z.string().regex(/^[1-9]\d*$/, MESSAGES.missingRecipient.description),
    paymentMethodId: z.string().min(1, MESSAGES.missingPaymentMethod.description),
    ownPin: z.boolean(),
    senderPin: z.string(),
    /** 'Save {name} for next time' (ticked by default; only false means unticked). */
    saveRecipient: z.boolean().optional(),
  })
  .superRefine((values, ctx) => {
    if (!values.ownPin) return;
    const problem = senderPinProblem(values.senderPin);
    if (problem) ctx.addIssue({ code: "custom", path: ["senderPin"], message: problem });
  });
export type SendMoneyValues = z.infer<typeof sendMoneySchema>;

/** The fields each step checks before Next; the confirmation step checks them all. */
export const STEP_FIELDS: Record<1 | 2 | 3, Array<keyof SendMoneyValues>> = {
  1: ["amount"],
  2: ["recipientName", "recipientPhone", "bank", "senderPin"],
  3: ["paymentMethodId"],
};

/** The toast title of a PIN the wizard refuses (its description is the field's message). */
export const PIN_TOAST_TITLE = "Check the PIN";

/** The toast title of a phone number the wizard refuses (its description is INVALID_MOBILE). */
export const PHONE_TOAST_TITLE = "Invalid phone number";

/** The toast title of a recipient's name the wizard refuses (its description is the field's message). */
export const NAME_TOAST_TITLE = "Invalid recipient name";

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

/**
 * A phone number in a withdrawal location, as the transfers service's phoneNumber finds it
 * (change both together): seven or more digits, however grouped ("087 575 9404").
 */
const PHONE_NUMBER = /\d(?:[ \-().]*\d){6,}/;

/** The longest withdrawal location's name the transfers service takes, in characters. */
export const MAX_LOCATION_NAME = 100;

/**
 * A link's withdrawal location by the transfers service's rule (NewRequest): every run of white
 * space (any Unicode White_Space, as Go's strings.Fields) becomes one space, trimmed; then no
 * character a reader cannot see, no web address (lib/person-name, as platform/personname), no
 * phone number (PHONE_NUMBER) and at most MAX_LOCATION_NAME characters. Undefined for an empty location or one the server would
 * refuse: the sender cannot edit it, so the wizard uses the default rather than show it.
 */
export function locationFromLink(raw: string): string | undefined {
  const name = raw.split(/\p{White_Space}+/u).filter(Boolean).join(" ");
  if (!name || hasHiddenCharacter(name) || hasWebAddress(name) || PHONE_NUMBER.test(name)) return undefined;
  if ([...name].length > MAX_LOCATION_NAME) return undefined;
  return name;
}

export const EMPTY_VALUES: SendMoneyValues = {
  amount: "",
  recipientName: "",
  recipientPhone: "",
  bank: "",
  paymentMethodId: "",
  ownPin: false,
  senderPin: "",
  saveRecipient: true,
};

/**
 * The wizard's starting values from the query string: amount (rand as parseRandToCents reads
 * it: "150", "150.50", also "1 500" or "150,50"; kept as passed, the field shows it so),
 * recipient (a name, or one of the preset keys that fills name and phone), phone (a South
 * African mobile shown grouped, "+27 82 555 0143", in whatever notation it came) and location.
 * An amount that is not a valid rand amount is left out rather than half-used; a location the
 * server would refuse (locationFromLink) gives way to the default.
 */
export function prefillFromSearch(params: URLSearchParams): {
  values: SendMoneyValues;
  location: WithdrawalLocationInit;
} {
  const amountText = params.get("amount")?.trim() ?? "";
  const valid = amountText !== "" && parseRandToCents(amountText) !== undefined;
  // Send Similar and Resend write the stored amount ("150.00"); whole rand (every amount an ATM
  // pays out) is shown as the sender would type it ("150"), not with a dot the rest of the page,
  // which writes "R150,00", never shows. Any other notation is left as given ("1 500"), without
  // a rand sign passed with it ("R150"): the field shows its own R before the amount.
  const amount = !valid ? "" : withoutRandSign(amountText).replace(/^(\d+)[.,]00$/, "$1");
  const recipient = params.get("recipient")?.trim() ?? "";
  const preset = presetRecipient(recipient);
  const phone = params.get("phone")?.trim() ?? "";
  const location = locationFromLink(params.get("location") ?? "");
  // The bank's enum number (Send Similar, Resend); anything else is left for the sender.
  const bank = /^[1-9]\d*$/.test(params.get("bank")?.trim() ?? "") ? (params.get("bank")?.trim() ?? "") : "";
  return {
    values: {
      ...EMPTY_VALUES,
      amount,
      recipientName: preset ? preset.name : recipient,
      // A link's phone (Send Similar and Resend pass the stored E.164) as the field shows a picked
      // saved recipient's: "+27 82 555 0143".
      recipientPhone: phone ? phoneForField(phone) : (preset?.phone ?? ""),
      bank,
    },
    location: location ? { name: location, type: "param" } : DEFAULT_LOCATION,
  };
}

/** A fresh idempotency key: one per wizard run, reused when the same request is retried. */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}
