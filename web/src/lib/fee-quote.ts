import { useQuery } from "@connectrpc/connect-query";
import { keepPreviousData, skipToken } from "@tanstack/react-query";
import { TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { Bank, FeeQuote } from "@/gen/thumela/bff/v1/bff_pb";

/**
 * The server's fee quote for an amount to a bank (TransfersService.QuoteFee: the price
 * CreateTransfer charges, and the one CreateSchedule keeps); skipped until both are known. The
 * send-money wizard's summary and the schedule dialog both show it (features do not import each
 * other), so they share one query per amount and bank.
 */
export function useFeeQuote(bank: Bank | undefined, amountCents: bigint | undefined) {
  return useQuery(
    TransfersService.method.quoteFee,
    bank && amountCents && amountCents > 0n ? { bank, amountCents } : skipToken,
    { placeholderData: keepPreviousData },
  );
}

/**
 * The fee and the total that one send charges at `quote` without the first-transfer waiver. A
 * schedule keeps the fee quoted when it is made (docs/decisions.md, "Recurring sends: what the
 * schedule keeps"), and the waiver is decided per send: only a send that is the sender's first
 * transfer goes free, so the schedule's price is the full fee.
 */
export function feeWithoutWaiver(quote: FeeQuote): { feeCents: bigint; totalCents: bigint } {
  const feeCents = quote.waived ? quote.waivedFeeCents : quote.totalFeeCents;
  return { feeCents, totalCents: quote.amountCents + feeCents };
}
