import { describe, expect, it } from "vitest";
import { cardRefundCents, creditSplit } from "./credit";

describe("creditSplit", () => {
  it("spends min(balance, fee): the card always pays the amount, and the rest of the fee", () => {
    expect(creditSplit(5_000n, 1_140n, 16_140n)).toEqual({ creditCents: 1_140n, cardCents: 15_000n });
    expect(creditSplit(500n, 1_140n, 16_140n)).toEqual({ creditCents: 500n, cardCents: 15_640n });
    expect(creditSplit(50_000n, 0n, 15_000n)).toEqual({ creditCents: 0n, cardCents: 15_000n }); // a free first transfer
    expect(creditSplit(0n, 1_140n, 16_140n)).toEqual({ creditCents: 0n, cardCents: 16_140n });
    expect(creditSplit(-1n, 10n, 110n)).toEqual({ creditCents: 0n, cardCents: 110n });
  });
});

describe("cardRefundCents", () => {
  it("refunds to the card what the card paid", () => {
    expect(cardRefundCents({ totalAmountCents: 16_140n, creditAppliedCents: 5_000n, cardChargeCents: 11_140n })).toBe(11_140n);
    expect(cardRefundCents({ totalAmountCents: 16_140n, creditAppliedCents: 0n, cardChargeCents: 0n })).toBe(16_140n);
  });
});

describe("cancelRefundText", () => {
  it("names the card's part and the credit's", async () => {
    const { cancelRefundText } = await import("./credit");
    expect(cancelRefundText({ totalAmountCents: 16_140n, creditAppliedCents: 5_000n, cardChargeCents: 11_140n })).toBe(
      "R111,40 will be refunded to your card. R50,00 of credit goes back to your balance.",
    );
    expect(cancelRefundText({ totalAmountCents: 16_140n, creditAppliedCents: 16_140n, cardChargeCents: 0n })).toBe(
      "R161,40 of credit goes back to your balance.",
    );
    expect(cancelRefundText({ totalAmountCents: 16_140n, creditAppliedCents: 0n, cardChargeCents: 16_140n })).toBe(
      "R161,40 will be refunded to your card.",
    );
  });
});
