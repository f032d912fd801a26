import { SA_TIME_ZONE } from "./date";
import { formatMoney } from "./money";

/**
 * Thumela's transfer limits: the ONE place the web client states them. Every help, FAQ, terms
 * and compliance text imports from here.
 *
 * They mirror the defaults the transfers service enforces (DECISIONS.md "Limits";
 * services/transfers/internal/domain/limits.go `DefaultLimits`, configurable there with
 * TRANSFERS_LIMIT_*_CENTS). The server is the authority: a refused transfer says which limit
 * it hit and how much room is left. Limits count the amount sent (fees excluded) of every
 * transfer that is not failed or refunded, by calendar day, month and year in South African
 * time.
 */
export const TRANSFER_LIMITS_CENTS = {
  minimum: 1_000,
  perTransfer: 300_000,
  perDay: 500_000,
  perMonth: 2_400_000,
  perYear: 10_000_000,
} as const;

export type TransferLimitKind = keyof typeof TRANSFER_LIMITS_CENTS;

/** The calendar used for the daily, monthly and yearly limits. */
export const LIMITS_TIME_ZONE = SA_TIME_ZONE;
export const LIMITS_TIME_ZONE_LABEL = "South African Standard Time (SAST, Africa/Johannesburg)";

/** The limits as shown to people, e.g. `LIMITS.perTransfer` → "R3 000,00". */
export const LIMITS: Record<TransferLimitKind, string> = {
  minimum: formatMoney(TRANSFER_LIMITS_CENTS.minimum),
  perTransfer: formatMoney(TRANSFER_LIMITS_CENTS.perTransfer),
  perDay: formatMoney(TRANSFER_LIMITS_CENTS.perDay),
  perMonth: formatMoney(TRANSFER_LIMITS_CENTS.perMonth),
  perYear: formatMoney(TRANSFER_LIMITS_CENTS.perYear),
};

/** Rows for a limits table, in the order people think about them. */
export const LIMIT_ROWS: ReadonlyArray<{ kind: TransferLimitKind; label: string; value: string }> = [
  { kind: "minimum", label: "Minimum per transfer", value: LIMITS.minimum },
  { kind: "perTransfer", label: "Maximum per transfer", value: LIMITS.perTransfer },
  { kind: "perDay", label: "Per calendar day", value: LIMITS.perDay },
  { kind: "perMonth", label: "Per calendar month", value: LIMITS.perMonth },
  { kind: "perYear", label: "Per calendar year", value: LIMITS.perYear },
];

/** One sentence with every limit, for FAQ answers. */
export const LIMITS_SENTENCE =
  `You can send from ${LIMITS.minimum} up to ${LIMITS.perTransfer} per transfer, ` +
  `with at most ${LIMITS.perDay} per day, ${LIMITS.perMonth} per calendar month and ` +
  `${LIMITS.perYear} per calendar year (South African time). Fees do not count towards the limits.`;

/** How long a recipient has to collect the cash (DECISIONS.md: vouchers are valid 7 days). */
export const VOUCHER_VALID_DAYS = 7;
