import { useQuery } from "@connectrpc/connect-query";
import { CreditService } from "@/gen/thumela/bff/v1/bff_pb";
import { formatMoney } from "@/lib/money";

/**
 * Transfer credit (CreditService.GetCredit): the balance, the user's referral code and figures.
 * Shared by /refer-friend, the wizard's confirmation step and the dashboard; the live stream's
 * credit_changed invalidates it.
 */
export function useCredit({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery(CreditService.method.getCredit, {}, { enabled });
}

/** What a friend who signs up with a referral code gets once verified (the server's default). */
export const NEW_USER_CREDIT_CENTS = 5_000;
/** What the referrer gets when that friend's first transfer completes. */
export const REFERRER_REWARD_CENTS = 10_000;
export const NEW_USER_CREDIT = formatMoney(NEW_USER_CREDIT_CENTS);
export const REFERRER_REWARD = formatMoney(REFERRER_REWARD_CENTS);

/**
 * How a total would be paid with balance cents of credit: the transfers service spends
 * min(balance, fee) when the transfer is created and charges the card the rest. Credit pays
 * fees, never the amount sent (it leaves an ATM as cash; docs/credit.md). An estimate: the
 * server decides when the transfer is made.
 */
export function creditSplit(
  balanceCents: bigint,
  feeCents: bigint,
  totalCents: bigint,
): { creditCents: bigint; cardCents: bigint } {
  const balance = balanceCents > 0n ? balanceCents : 0n;
  const fee = feeCents > 0n ? feeCents : 0n;
  const creditCents = balance < fee ? balance : fee;
  return { creditCents, cardCents: totalCents - creditCents };
}

/**
 * What goes back to the card when a transfer's voucher is cancelled or expires: what the card
 * was charged (the credit spent goes back to the credit balance instead). A transfer without
 * credit was charged its whole total.
 */
export function cardRefundCents(transfer: { totalAmountCents: bigint; creditAppliedCents: bigint; cardChargeCents: bigint }): bigint {
  return transfer.creditAppliedCents > 0n ? transfer.cardChargeCents : transfer.totalAmountCents;
}

/** ' R50.00 of credit goes back to your balance.' for a transfer that spent credit, else ''. */
export function creditReturnText(transfer: { creditAppliedCents: bigint }): string {
  return transfer.creditAppliedCents > 0n ? ` ${formatMoney(transfer.creditAppliedCents)} of credit goes back to your balance.` : "";
}

/**
 * What a cancelled voucher gives back, in words: the card's part (when the card paid any) and
 * the credit's, e.g. 'R111,40 will be refunded to your card. R50,00 of credit goes back to your
 * balance.'
 */
export function cancelRefundText(transfer: { totalAmountCents: bigint; creditAppliedCents: bigint; cardChargeCents: bigint }): string {
  const card = cardRefundCents(transfer);
  const credit = creditReturnText(transfer).trim();
  if (card <= 0n && credit) return credit;
  return `${formatMoney(card)} will be refunded to your card.${credit ? ` ${credit}` : ""}`;
}
