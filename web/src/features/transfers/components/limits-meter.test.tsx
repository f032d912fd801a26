import { create } from "@bufbuild/protobuf";
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { GetLimitsResponseSchema, LimitKind, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { GetLimitsResponse } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { allowanceText, summarise, uncollectedText } from "./limits-meter";

const SLOW = { timeout: 10_000 };
/** Testing Library collapses the non-breaking spaces of en-ZA amounts into plain spaces. */
const text = (value: string) => value.replace(/\s/g, " ");

function limits(dayUsed: bigint, monthUsed: bigint, uncollectedCents = 0n, uncollectedVouchers = 0): GetLimitsResponse {
  const dayLeft = 500_000n - dayUsed;
  const monthLeft = 2_400_000n - monthUsed;
  const next = [300_000n, dayLeft, monthLeft].reduce((a, b) => (b < a ? b : a));
  return create(GetLimitsResponseSchema, {
    limits: [
      { kind: LimitKind.PER_TRANSFER, limitCents: 300_000n, remainingCents: next },
      { kind: LimitKind.DAILY, limitCents: 500_000n, usedCents: dayUsed, remainingCents: dayLeft },
      { kind: LimitKind.MONTHLY, limitCents: 2_400_000n, usedCents: monthUsed, remainingCents: monthLeft },
      { kind: LimitKind.YEARLY, limitCents: 10_000_000n, usedCents: monthUsed, remainingCents: 10_000_000n - monthUsed },
      { kind: LimitKind.MINIMUM, limitCents: 1_000n },
    ],
    uncollectedCents,
    uncollectedVouchers,
  });
}

describe("the limits meter's words", () => {
  it("says what is left today of the daily limit, and this month", () => {
    const s = summarise(limits(375_000n, 400_000n))!;
    expect(text(allowanceText(s))).toBe("R1 250,00 of R5 000,00 left today · R20 000,00 this month");
  });

  it("counts the money waiting in uncollected vouchers, in the singular too", () => {
    expect(text(uncollectedText(summarise(limits(0n, 0n, 60_000n, 2))!)!)).toBe("R600,00 waiting in 2 uncollected vouchers");
    expect(text(uncollectedText(summarise(limits(0n, 0n, 10_000n, 1))!)!)).toBe("R100,00 waiting in 1 uncollected voucher");
    expect(uncollectedText(summarise(limits(0n, 0n))!)).toBeUndefined();
  });

  it("has nothing to say without the server's answer", () => {
    expect(summarise(undefined)).toBeUndefined();
  });
});

describe("the dashboard's limits card", () => {
  it("shows the server's usage, the waiting vouchers and an accessible meter", async () => {
    renderApp("/dashboard", {
      session: SIGNED_IN,
      routes: (router) => router.rpc(TransfersService.method.getLimits, () => limits(375_000n, 400_000n, 60_000n, 2)),
    });
    const card = await screen.findByRole("region", { name: "Your limits" }, SLOW);
    await waitFor(() => expect(within(card).getByText("R1 250,00 of R5 000,00 left today · R20 000,00 this month")).toBeInTheDocument());
    expect(within(card).getByText("R600,00 waiting in 2 uncollected vouchers")).toBeInTheDocument();
    const meter = within(card).getByRole("meter", { name: "Used of today's limit" });
    expect(meter).toHaveAttribute("aria-valuenow", "75");
  });

  it("offers to try again when the limits cannot be read", async () => {
    renderApp("/dashboard", {
      session: SIGNED_IN,
      routes: (router) =>
        router.rpc(TransfersService.method.getLimits, () => {
          throw new Error("down");
        }),
    });
    const card = await screen.findByRole("region", { name: "Your limits" }, SLOW);
    expect(await within(card).findByText(/could not be loaded/, undefined, SLOW)).toBeInTheDocument();
    expect(within(card).getByRole("button", { name: "Try again" })).toBeInTheDocument();
  });
});
