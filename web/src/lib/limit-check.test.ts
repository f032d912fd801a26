import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { GetLimitPolicyResponseSchema, GetLimitsResponseSchema, LimitKind } from "@/gen/thumela/bff/v1/bff_pb";
import { limitProblem, scheduleLimitProblem } from "./limit-check";

/** GetLimits for the production defaults with this much used (cents) today, this month, this year. */
function limits(used: { day?: bigint; month?: bigint; year?: bigint } = {}) {
  const left = (limit: bigint, spent = 0n) => (limit - spent > 0n ? limit - spent : 0n);
  const day = left(500_000n, used.day);
  const month = left(2_400_000n, used.month);
  const year = left(10_000_000n, used.year);
  const least = [300_000n, day, month, year].reduce((a, b) => (b < a ? b : a));
  return create(GetLimitsResponseSchema, {
    limits: [
      { kind: LimitKind.PER_TRANSFER, limitCents: 300_000n, remainingCents: least },
      { kind: LimitKind.DAILY, limitCents: 500_000n, usedCents: used.day ?? 0n, remainingCents: day },
      { kind: LimitKind.MONTHLY, limitCents: 2_400_000n, usedCents: used.month ?? 0n, remainingCents: month },
      { kind: LimitKind.YEARLY, limitCents: 10_000_000n, usedCents: used.year ?? 0n, remainingCents: year },
      { kind: LimitKind.MINIMUM, limitCents: 1_000n },
    ],
  });
}

/** en-ZA groups with a no-break space; compare with plain spaces. */
const plain = (text: string | undefined) => text?.replace(/\s/g, " ");

describe("limitProblem", () => {
  it("passes an amount within every limit, and anything while the limits are unknown", () => {
    expect(limitProblem(300_000n, limits())).toBeUndefined();
    expect(limitProblem(1_000n, limits())).toBeUndefined();
    expect(limitProblem(10_000_000n, undefined)).toBeUndefined();
  });

  it("refuses below the minimum", () => {
    expect(plain(limitProblem(500n, limits()))).toBe("The minimum transfer is R10,00.");
  });

  it("refuses above the per-transfer limit in the server's words", () => {
    expect(plain(limitProblem(300_100n, limits()))).toBe(
      "This transfer exceeds the limit of R3 000,00 per transfer. You can send up to R3 000,00 in one transfer.",
    );
  });

  it("names the room left today, this month or this year when that is the least", () => {
    expect(plain(limitProblem(250_000n, limits({ day: 300_000n, month: 300_000n, year: 300_000n })))).toBe(
      "This transfer exceeds your daily limit of R5 000,00. You can still send R2 000,00 today.",
    );
    expect(plain(limitProblem(250_000n, limits({ month: 2_300_000n, year: 2_300_000n })))).toBe(
      "This transfer exceeds your monthly limit of R24 000,00. You can still send R1 000,00 this month.",
    );
    expect(plain(limitProblem(250_000n, limits({ year: 9_850_000n })))).toBe(
      "This transfer exceeds your yearly limit of R100 000,00. You can still send R1 500,00 this year.",
    );
  });

  it("on a tie names the shorter period, and the per-transfer limit before the day", () => {
    // R2 000 left today and this month: the day is named.
    expect(plain(limitProblem(250_000n, limits({ day: 300_000n, month: 2_200_000n })))).toMatch(/^This transfer exceeds your daily limit/);
    // R3 000 left today, the same as the per-transfer limit: the per-transfer limit is named.
    expect(plain(limitProblem(310_000n, limits({ day: 200_000n })))).toMatch(/^This transfer exceeds the limit of R3 000,00 per transfer/);
  });

  it("says when a limit is used up (less left than the minimum)", () => {
    expect(plain(limitProblem(10_000n, limits({ day: 499_500n })))).toBe(
      "You have reached your daily limit of R5 000,00. You can send again tomorrow.",
    );
    expect(plain(limitProblem(10_000n, limits({ month: 2_400_000n })))).toBe(
      "You have reached your monthly limit of R24 000,00. You can send again next month.",
    );
    expect(plain(limitProblem(10_000n, limits({ year: 10_000_000n })))).toBe(
      "You have reached your yearly limit of R100 000,00. You can send again next year.",
    );
  });
});

/** GetLimitPolicy with the production defaults, or others. */
function policy(cents: { minimum?: bigint; perTransfer?: bigint; daily?: bigint; monthly?: bigint; yearly?: bigint } = {}) {
  return create(GetLimitPolicyResponseSchema, {
    limits: [
      { kind: LimitKind.MINIMUM, limitCents: cents.minimum ?? 1_000n },
      { kind: LimitKind.PER_TRANSFER, limitCents: cents.perTransfer ?? 300_000n },
      { kind: LimitKind.DAILY, limitCents: cents.daily ?? 500_000n },
      { kind: LimitKind.MONTHLY, limitCents: cents.monthly ?? 2_400_000n },
      { kind: LimitKind.YEARLY, limitCents: cents.yearly ?? 10_000_000n },
    ],
    amountMultipleCents: 1_000n,
  });
}

describe("scheduleLimitProblem (CreateSchedule's check: the limits with nothing used)", () => {
  it("passes up to the per-transfer limit, and anything while the policy is unknown", () => {
    expect(scheduleLimitProblem(300_000n, policy())).toBeUndefined();
    expect(scheduleLimitProblem(1_000n, policy())).toBeUndefined();
    expect(scheduleLimitProblem(10_000_000n, undefined)).toBeUndefined();
  });

  it("refuses above the per-transfer limit and below the minimum, in the wizard's (the server's) words", () => {
    expect(plain(scheduleLimitProblem(300_100n, policy()))).toBe(
      "This transfer exceeds the limit of R3 000,00 per transfer. You can send up to R3 000,00 in one transfer.",
    );
    expect(scheduleLimitProblem(300_100n, policy())).toBe(limitProblem(300_100n, limits()));
    expect(plain(scheduleLimitProblem(500n, policy()))).toBe("The minimum transfer is R10,00.");
  });

  it("does not look at what was sent today, this month or this year", () => {
    // Today's room is used up: the wizard refuses R500 now, a schedule of R500 is accepted.
    expect(limitProblem(50_000n, limits({ day: 500_000n, month: 2_400_000n, year: 10_000_000n }))).toBeDefined();
    expect(scheduleLimitProblem(50_000n, policy())).toBeUndefined();
  });

  it("names a period's limit when it is configured below the per-transfer limit, as the server does", () => {
    expect(plain(scheduleLimitProblem(250_000n, policy({ daily: 200_000n })))).toBe(
      "This transfer exceeds your daily limit of R2 000,00. You can still send R2 000,00 today.",
    );
  });
});
