import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { PaymentMethodsService, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import { ServiceOutage, reportingOutages } from "./service-outage";

/** A fake BFF whose payment methods answer `next` (a code to fail with, or "ok"). */
function backend() {
  const state: { paymentMethods: Code | "ok" } = { paymentMethods: "ok" };
  const transport = createRouterTransport((router) => {
    router.service(PaymentMethodsService, {
      listPaymentMethods: () => {
        if (state.paymentMethods !== "ok") throw new ConnectError("down", state.paymentMethods);
        return {};
      },
    });
    router.service(TransfersService, { listTransfers: () => ({}) });
  });
  const outage = new ServiceOutage();
  const reporting = reportingOutages(transport, outage);
  return {
    state,
    outage,
    paymentMethods: createClient(PaymentMethodsService, reporting),
    transfers: createClient(TransfersService, reporting),
  };
}

describe("service outage", () => {
  it("is shown after Unavailable until that service answers again", async () => {
    const { state, outage, paymentMethods, transfers } = backend();
    let changes = 0;
    outage.subscribe(() => changes++);
    expect(outage.isShown()).toBe(false);

    state.paymentMethods = Code.Unavailable;
    await expect(paymentMethods.listPaymentMethods({})).rejects.toThrow(ConnectError);
    expect(outage.isShown()).toBe(true);
    expect(changes).toBe(1);

    // Another service answering says nothing about the one that is down.
    await transfers.listTransfers({});
    expect(outage.isShown()).toBe(true);

    state.paymentMethods = "ok";
    await paymentMethods.listPaymentMethods({});
    expect(outage.isShown()).toBe(false);
    expect(changes).toBe(2);
  });

  it("ends on any answer of the service, not on a failure to get one", async () => {
    const { state, outage, paymentMethods } = backend();
    state.paymentMethods = Code.Unavailable;
    await expect(paymentMethods.listPaymentMethods({})).rejects.toThrow();

    // No answer at all (the browser's own network failure) or a deadline: still unreachable.
    for (const code of [Code.Unknown, Code.DeadlineExceeded, Code.Canceled]) {
      state.paymentMethods = code;
      await expect(paymentMethods.listPaymentMethods({})).rejects.toThrow();
      expect(outage.isShown(), Code[code]).toBe(true);
    }
    // A refusal is an answer: the service is up.
    state.paymentMethods = Code.NotFound;
    await expect(paymentMethods.listPaymentMethods({})).rejects.toThrow();
    expect(outage.isShown()).toBe(false);
  });

  it("stays dismissed until the next Unavailable", async () => {
    const { state, outage, paymentMethods } = backend();
    state.paymentMethods = Code.Unavailable;
    await expect(paymentMethods.listPaymentMethods({})).rejects.toThrow();
    outage.dismiss();
    expect(outage.isShown()).toBe(false);

    await expect(paymentMethods.listPaymentMethods({})).rejects.toThrow();
    expect(outage.isShown()).toBe(true);
  });

  it("is not shown for a service's other errors", async () => {
    const { state, outage, paymentMethods } = backend();
    for (const code of [Code.Internal, Code.Unknown, Code.ResourceExhausted]) {
      state.paymentMethods = code;
      await expect(paymentMethods.listPaymentMethods({})).rejects.toThrow();
      expect(outage.isShown(), Code[code]).toBe(false);
    }
  });
});
