import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { CollectionStatus, RefundStatus, SmsDeliverySchema, SmsDeliveryStatus } from "@/gen/thumela/bff/v1/bff_pb";
import { completed, makeTransfer, withChanges, withVoucher } from "../../test-utils";
import { voucherOutcomeSentence, voucherSmsSentence } from "./transfer-result";

const sms = (status: SmsDeliveryStatus, recipient = "+27821234567") => create(SmsDeliverySchema, { status, recipient });

describe("voucherSmsSentence", () => {
  const transfer = completed(makeTransfer({ recipientName: "Thandi Mokoena", recipientPhone: "+27821234567" }));

  it("says the recipient received the voucher only once the network reported it delivered", () => {
    expect(voucherSmsSentence(withChanges(transfer, { smsDelivery: sms(SmsDeliveryStatus.DELIVERED) }))).toBe(
      "Thandi Mokoena received the voucher number and PIN by SMS on +27 82 123 4567.",
    );
  });

  it("before any report, says it is on its way", () => {
    expect(voucherSmsSentence(transfer)).toBe("Thandi Mokoena gets the voucher number and PIN by SMS on +27 82 123 4567.");
    expect(voucherSmsSentence(withChanges(transfer, { smsDelivery: sms(SmsDeliveryStatus.QUEUED) }))).toBe(
      "Thandi Mokoena gets the voucher number and PIN by SMS on +27 82 123 4567.",
    );
    expect(voucherSmsSentence(withChanges(transfer, { smsDelivery: sms(SmsDeliveryStatus.SENT) }))).toBe(
      "We sent the voucher number and PIN to Thandi Mokoena by SMS on +27 82 123 4567; the network has not confirmed delivery yet.",
    );
  });

  it("says so when the SMS failed, to the number it was sent to, and what to do", () => {
    expect(voucherSmsSentence(withChanges(transfer, { smsDelivery: sms(SmsDeliveryStatus.FAILED, "+27829990000") }))).toBe(
      "We could not deliver the SMS with the voucher number and PIN to +27 82 999 0000. Open this transfer in your transactions to resend it or change the number.",
    );
  });

  it("leaves the PIN out when the sender chose it", () => {
    const own = withChanges(transfer, {
      voucher: { ...transfer.voucher!, pinChosenBySender: true },
      smsDelivery: sms(SmsDeliveryStatus.DELIVERED),
    });
    expect(voucherSmsSentence(own)).toBe("Thandi Mokoena received the voucher number by SMS on +27 82 123 4567.");
  });
});

describe("voucherOutcomeSentence", () => {
  const transfer = completed(makeTransfer({ recipientName: "Thandi Mokoena", amountCents: 50000n }));

  it("says nothing while the voucher waits for the recipient", () => {
    expect(voucherOutcomeSentence(transfer)).toBeUndefined();
  });

  it("says who collected how much, where and when", () => {
    const now = new Date("2026-03-05T12:00:00+02:00");
    const collected = withVoucher(transfer, {
      collectionStatus: CollectionStatus.COLLECTED,
      collectedAtLocation: "FNB ATM Sandton City",
      collectedAt: timestampFromMs(Date.parse("2026-03-05T11:15:00+02:00")),
    });
    expect(voucherOutcomeSentence(collected, now)).toBe(`Thandi Mokoena collected R500,00 at FNB ATM Sandton City, 11:15.`);
  });

  it("says a cancelled voucher can no longer be collected, with its refund", () => {
    const cancelled = withChanges(withVoucher(transfer, { collectionStatus: CollectionStatus.CANCELLED }), {
      refundStatus: RefundStatus.PENDING,
    });
    expect(voucherOutcomeSentence(cancelled)).toMatch(/^This voucher was cancelled: it can no longer be collected\. R.* is being refunded to your card\.$/);
  });
});
