import { formatMoney } from "./money";

/**
 * Thumela's published fee schedule (DECISIONS.md "Money"): the recipient bank's cash-send fee
 * plus a platform fee of 0.3 % of the amount, rounded half-up to the cent. The sender's first
 * transfer is free. These are the fees the fees service is seeded with; the quote shown in the
 * send-money wizard comes from the server and is what is charged.
 */
export const PLATFORM_FEE_BPS = 30;
export const PLATFORM_FEE_TEXT = "0.3%";

export interface BankFee {
  bank: string;
  baseFeeCents: number;
}

export const BANK_FEES: readonly BankFee[] = [
  { bank: "Standard Bank", baseFeeCents: 1095 },
  { bank: "ABSA", baseFeeCents: 850 },
  { bank: "FNB", baseFeeCents: 1095 },
  { bank: "Nedbank", baseFeeCents: 850 },
  { bank: "Capitec", baseFeeCents: 1000 },
];

/** Used when a bank's fee cannot be looked up: R10.00 + 0.3 %. */
export const FALLBACK_BASE_FEE_CENTS = 1000;

/** The platform fee for an amount: basis points of the amount, rounded half-up to the cent. */
export function platformFeeCents(amountCents: number): number {
  return Math.floor((amountCents * PLATFORM_FEE_BPS + 5_000) / 10_000);
}

export interface FeeExample {
  bank: string;
  amount: string;
  bankFee: string;
  platformFee: string;
  totalFee: string;
  total: string;
}

/** A worked example for the fee pages. */
export function feeExample(bank: BankFee, amountCents: number): FeeExample {
  const platform = platformFeeCents(amountCents);
  const fee = bank.baseFeeCents + platform;
  return {
    bank: bank.bank,
    amount: formatMoney(amountCents),
    bankFee: formatMoney(bank.baseFeeCents),
    platformFee: formatMoney(platform),
    totalFee: formatMoney(fee),
    total: formatMoney(amountCents + fee),
  };
}
