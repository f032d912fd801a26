import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { Bank, CollectionStatus, RefundStatus, SmsDeliverySchema, SmsDeliveryStatus, TransferSchema } from "@/gen/thumela/bff/v1/bff_pb";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { smsNotice, transferNotice } from "./apply-event";

function transfer(init: MessageInitShape<typeof TransferSchema>) {
  return create(TransferSchema, {
    id: "t1",
    recipientName: "Thandi",
    bank: Bank.FNB,
    amountCents: 50000n,
    totalAmountCents: 51245n,
    ...init,
  });
}

const awaiting = transfer({ voucher: { collectionStatus: CollectionStatus.AWAITING_COLLECTION } });
const collected = transfer({
  voucher: { collectionStatus: CollectionStatus.COLLECTED, collectedAtLocation: "FNB ATM Sandton City" },
});

describe("transferNotice", () => {
  it("tells the cash collected, once, where the ATM network says", () => {
    expect(transferNotice(awaiting, collected)).toEqual({
      id: "t1:collected:0",
      title: "Cash collected",
      description: "Thandi collected R500,00 at FNB ATM Sandton City.",
    });
    // Not seen before: still news.
    expect(transferNotice(undefined, collected)?.title).toBe("Cash collected");
    // Already collected: no news.
    expect(transferNotice(collected, collected)).toBeUndefined();
  });

  it("corrects a collection the ATM reversed, and tells the next collection again", () => {
    const at = timestampFromMs(Date.UTC(2026, 11, 1, 10, 0));
    const first = transfer({
      voucher: { collectionStatus: CollectionStatus.COLLECTED, collectedAtLocation: "FNB ATM Sandton City", collectedAt: at },
    });
    expect(transferNotice(first, awaiting)).toEqual({
      id: `t1:reversed:${at.seconds}`,
      tone: "warning",
      title: "Cash not dispensed",
      description:
        "Correction: Thandi did not get the R500,00 at FNB ATM Sandton City. No cash was dispensed, the withdrawal was reversed, and the voucher can still be collected.",
    });
    // A tab that never knew of the collection has nothing to correct.
    expect(transferNotice(undefined, awaiting)).toBeUndefined();
    expect(transferNotice(awaiting, awaiting)).toBeUndefined();
    // Collected again later: a notice of its own, not the first one's id.
    const again = transfer({
      voucher: { collectionStatus: CollectionStatus.COLLECTED, collectedAtLocation: "FNB ATM Rosebank", collectedAt: timestampFromMs(Date.UTC(2026, 11, 1, 11, 0)) },
    });
    const notice = transferNotice(awaiting, again);
    expect(notice?.title).toBe("Cash collected");
    expect(notice?.id).not.toBe(transferNotice(awaiting, first)?.id);
  });

  it("names the bank's ATM when the location is not known", () => {
    const unnamed = transfer({ voucher: { collectionStatus: CollectionStatus.COLLECTED } });
    expect(transferNotice(awaiting, unnamed)?.description).toBe("Thandi collected R500,00 at an FNB ATM.");
  });

  it("tells a refund only once it is made", () => {
    const pending = transfer({ refundStatus: RefundStatus.PENDING, voucher: { collectionStatus: CollectionStatus.EXPIRED } });
    const refunded = transfer({ refundStatus: RefundStatus.REFUNDED, voucher: { collectionStatus: CollectionStatus.EXPIRED } });
    expect(transferNotice(awaiting, pending)).toBeUndefined();
    expect(transferNotice(pending, refunded)).toEqual({
      id: "t1:refunded",
      title: "Refund complete",
      description: "R512,45 was refunded to your card.",
    });
    expect(transferNotice(refunded, refunded)).toBeUndefined();
  });

  it("warns of a lock at the ATM once, and not of one that has passed", () => {
    const until = Date.now() + 3_600_000;
    const locked = transfer({
      voucher: { collectionStatus: CollectionStatus.AWAITING_COLLECTION, lockedUntil: timestampFromMs(until) },
    });
    expect(transferNotice(awaiting, locked)).toEqual({
      id: `t1:locked:${until}`,
      tone: "warning",
      title: "Voucher locked",
      description: "A wrong PIN or phone number was typed 5 times at an ATM for Thandi's voucher. Open the transfer to send a new voucher.",
    });
    expect(transferNotice(locked, locked)).toBeUndefined();
    const passed = transfer({
      voucher: { collectionStatus: CollectionStatus.AWAITING_COLLECTION, lockedUntil: timestampFromMs(Date.now() - 1000) },
    });
    expect(transferNotice(awaiting, passed)).toBeUndefined();
  });
});

describe("smsNotice", () => {
  const at = timestampFromMs(Date.UTC(2026, 10, 29, 12, 0));
  const failed = create(SmsDeliverySchema, {
    status: SmsDeliveryStatus.FAILED,
    recipient: "+27821234567",
    updatedAt: at,
    failureReason: "The number is not reachable.",
  });

  it("warns of a voucher SMS that was not delivered, with the reason and the way out", () => {
    const sent = transfer({ smsDelivery: { status: SmsDeliveryStatus.SENT, recipient: "+27821234567" } });
    expect(smsNotice("t1", sent, failed)).toEqual({
      id: `t1:sms-failed:+27821234567:${at.seconds}`,
      tone: "warning",
      title: "Voucher SMS not delivered",
      description:
        "Thandi's voucher SMS to +27 82 123 4567 was not delivered. The number is not reachable. Open the transfer to change the number or resend the SMS.",
    });
    // A transfer the tab has not seen: still news, without the name.
    expect(smsNotice("t1", undefined, failed)?.description).toMatch(/^Your recipient's voucher SMS to \+27 82 123 4567 was not delivered\./);
  });

  it("says nothing of other reports, nor twice of the same failure; a new number's failure is news", () => {
    for (const status of [SmsDeliveryStatus.QUEUED, SmsDeliveryStatus.SENT, SmsDeliveryStatus.DELIVERED]) {
      expect(smsNotice("t1", undefined, create(SmsDeliverySchema, { status, recipient: "+27821234567" }))).toBeUndefined();
    }
    expect(smsNotice("t1", transfer({ smsDelivery: failed }), failed)).toBeUndefined();
    const otherNumber = transfer({ smsDelivery: { ...failed, recipient: "+27831234567" } });
    expect(smsNotice("t1", otherNumber, failed)?.title).toBe("Voucher SMS not delivered");
  });
});
