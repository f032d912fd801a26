import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { Bank, CollectionStatus, RefundStatus, TransferStatus, VoucherSchema } from "@/gen/thumela/bff/v1/bff_pb";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { makeTransfer } from "../test-utils";
import { collectionPlace, isClosedVoucher, refundText, voucherState } from "./voucher-state";

// Mon 1 Dec 2025, 13:15 in Johannesburg (UTC+2, no daylight saving).
const monday1315 = new Date("2025-12-01T11:15:00Z");
const now = new Date("2025-12-01T16:00:00Z");

function withVoucher(voucher: MessageInitShape<typeof VoucherSchema>, refundStatus = RefundStatus.NONE) {
  return makeTransfer({
    status: TransferStatus.COMPLETED,
    bank: Bank.FNB,
    totalAmountCents: 51245n,
    refundStatus,
    voucher: create(VoucherSchema, { number: "4820193746", ...voucher }),
  });
}

describe("voucherState", () => {
  it("awaiting: the day it expires, in Johannesburg", () => {
    const transfer = withVoucher({
      collectionStatus: CollectionStatus.AWAITING_COLLECTION,
      // 23:30 on Sunday 30 Nov in UTC is already Monday 1 Dec in Johannesburg.
      expiresAt: timestampFromDate(new Date("2025-11-30T23:30:00Z")),
    });
    expect(voucherState(transfer, now)).toEqual({ text: "Awaiting collection · expires Mon 1 Dec", tone: "awaiting" });
  });

  it("awaiting but locked at an ATM: until when, then the expiry again once the lock passed", () => {
    const transfer = withVoucher({
      collectionStatus: CollectionStatus.AWAITING_COLLECTION,
      expiresAt: timestampFromDate(new Date("2025-11-30T23:30:00Z")),
      // 18:30 on Mon 1 Dec in Johannesburg; 'now' is 18:00 that day.
      lockedUntil: timestampFromDate(new Date("2025-12-01T16:30:00Z")),
    });
    expect(voucherState(transfer, now)).toEqual({ text: "Locked until 18:30 after wrong PINs", tone: "locked" });
    expect(voucherState(transfer, new Date("2025-11-30T16:00:00Z"))?.text).toBe("Locked until Mon 1 Dec 18:30 after wrong PINs");
    expect(voucherState(transfer, new Date("2025-12-01T16:30:00Z"))).toEqual({ text: "Awaiting collection · expires Mon 1 Dec", tone: "awaiting" });
  });

  it("collected: where, and when (the time today, the day before that)", () => {
    const transfer = withVoucher({
      collectionStatus: CollectionStatus.COLLECTED,
      collectedAt: timestampFromDate(monday1315),
      collectedAtLocation: "FNB ATM Sandton City",
    });
    expect(voucherState(transfer, now)?.text).toBe("Collected at FNB ATM Sandton City, 13:15");
    expect(voucherState(transfer, new Date("2025-12-03T08:00:00Z"))?.text).toBe("Collected at FNB ATM Sandton City, Mon 1 Dec 13:15");
    const unnamed = withVoucher({ collectionStatus: CollectionStatus.COLLECTED, collectedAt: timestampFromDate(monday1315) });
    expect(voucherState(unnamed, now)?.text).toBe("Collected at an FNB ATM, 13:15");
  });

  it.each([
    [CollectionStatus.CANCELLED, RefundStatus.REFUNDED, "Cancelled · refunded"],
    [CollectionStatus.EXPIRED, RefundStatus.REFUNDED, "Expired · refunded"],
    [CollectionStatus.CANCELLED, RefundStatus.PENDING, "Cancelled · refund pending"],
    [CollectionStatus.EXPIRED, RefundStatus.PENDING, "Expired · refund pending"],
    [CollectionStatus.CANCELLED, RefundStatus.UNSPECIFIED, "Cancelled"],
    [CollectionStatus.EXPIRED, RefundStatus.NONE, "Expired"],
  ])("voucher %s with refund %s reads %j, never 'refunded' before the refund is made", (collection, refund, text) => {
    const transfer = withVoucher({ collectionStatus: collection }, refund);
    expect(voucherState(transfer, now)).toEqual({ text, tone: "closed" });
    expect(isClosedVoucher(transfer)).toBe(true);
  });

  it("says nothing without a voucher", () => {
    expect(voucherState(makeTransfer(), now)).toBeUndefined();
  });
});

describe("refundText", () => {
  it("tells the refund as the server reports it", () => {
    const total = "R512,45";
    expect(refundText(withVoucher({ collectionStatus: CollectionStatus.CANCELLED }, RefundStatus.PENDING), total)).toBe(
      "R512,45 is being refunded to your card.",
    );
    expect(refundText(withVoucher({ collectionStatus: CollectionStatus.EXPIRED }, RefundStatus.REFUNDED), total)).toBe(
      "R512,45 was refunded to your card.",
    );
    expect(refundText(withVoucher({ collectionStatus: CollectionStatus.COLLECTED }), total)).toBeUndefined();
  });
});

describe("collectionPlace", () => {
  it("is the chosen bank's ATMs", () => {
    expect(collectionPlace(Bank.FNB)).toBe("any FNB ATM");
    expect(collectionPlace(Bank.STANDARD_BANK)).toBe("any Standard Bank ATM");
  });
});
