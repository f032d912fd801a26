import { create } from "@bufbuild/protobuf";
import { createRouterTransport } from "@connectrpc/connect";
import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { GetTransferResponseSchema, SmsDeliverySchema, SmsDeliveryStatus, TransferSchema, VoucherSchema } from "@/gen/thumela/bff/v1/bff_pb";
import type { GetTransferResponse } from "@/gen/thumela/bff/v1/bff_pb";
import { NEVER_READ_AT, smsStateUnread, storeTransfer, transferQueryKey, withKnownSms } from "./transfer-cache";

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

describe("storeTransfer", () => {
  const transport = createRouterTransport(() => {});
  const stateOf = (client: QueryClient, id: string) => client.getQueryState<GetTransferResponse>(transferQueryKey(transport, id));

  it("stores a transfer never read, answered without its SMS state, as never read (stale, SMS unknown)", () => {
    const client = new QueryClient();
    storeTransfer(client, transport, transfer("1234567890"));
    const held = stateOf(client, "t1");
    expect(held?.dataUpdatedAt).toBe(NEVER_READ_AT);
    expect(smsStateUnread(held?.data?.transfer, held?.dataUpdatedAt ?? -1)).toBe(true);
    // A second event before any read keeps it so.
    storeTransfer(client, transport, transfer("1234567890"));
    expect(stateOf(client, "t1")?.dataUpdatedAt).toBe(NEVER_READ_AT);
    // One that carries the state is a read of it.
    storeTransfer(client, transport, transfer("1234567890", delivered));
    const read = stateOf(client, "t1");
    expect(read?.dataUpdatedAt).toBeGreaterThan(NEVER_READ_AT);
    expect(smsStateUnread(read?.data?.transfer, read?.dataUpdatedAt ?? -1)).toBe(false);
  });

  it("keeps a read transfer read, with its SMS state; a transfer without a voucher has no SMS to know", () => {
    const client = new QueryClient();
    client.setQueryData(transferQueryKey(transport, "t1"), create(GetTransferResponseSchema, { transfer: transfer("1234567890", delivered) }));
    storeTransfer(client, transport, transfer("1234567890"));
    const held = stateOf(client, "t1");
    expect(held?.data?.transfer?.smsDelivery?.status).toBe(SmsDeliveryStatus.DELIVERED);
    expect(held?.dataUpdatedAt).toBeGreaterThan(NEVER_READ_AT);

    storeTransfer(client, transport, create(TransferSchema, { id: "t2" }));
    expect(smsStateUnread(stateOf(client, "t2")?.data?.transfer, stateOf(client, "t2")?.dataUpdatedAt ?? -1)).toBe(false);
  });
});
