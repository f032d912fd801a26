import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { SmsDeliverySchema, SmsDeliveryStatus, TransferSchema, VoucherSchema } from "@/gen/thumela/bff/v1/bff_pb";
import { withKnownSms } from "./transfer-cache";

const delivered = create(SmsDeliverySchema, { status: SmsDeliveryStatus.DELIVERED, recipient: "+27821234567" });
const transfer = (number: string, smsDelivery?: typeof delivered) =>
  create(TransferSchema, { id: "t1", voucher: create(VoucherSchema, { number }), smsDelivery });

describe("withKnownSms", () => {
  it("keeps the SMS state known for the same voucher when the answer carries none", () => {
    const next = transfer("1234567890");
    const kept = withKnownSms(next, transfer("1234567890", delivered));
    expect(kept.smsDelivery?.status).toBe(SmsDeliveryStatus.DELIVERED);
    expect(next.smsDelivery).toBeUndefined(); // the answer itself is not changed
  });

  it("drops it for a re-issued voucher, and prefers the answer's own", () => {
    expect(withKnownSms(transfer("2222222222"), transfer("1234567890", delivered)).smsDelivery).toBeUndefined();
    const own = create(SmsDeliverySchema, { status: SmsDeliveryStatus.SENT });
    expect(withKnownSms(transfer("1234567890", own), transfer("1234567890", delivered)).smsDelivery?.status).toBe(SmsDeliveryStatus.SENT);
    expect(withKnownSms(transfer("1234567890"), undefined).smsDelivery).toBeUndefined();
  });
});
