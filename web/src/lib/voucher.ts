/** How long a recipient has to collect the cash (DECISIONS.md: vouchers are valid 7 days). */
export const VOUCHER_VALID_DAYS = 7;
