import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import {
  CardBrand,
  ListPaymentMethodsResponseSchema,
  PaymentMethodSchema,
  PaymentMethodsService,
  PaymentMethodType,
} from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";

const BANNER = "We can't reach our payment system right now. Your money is safe; try again in a minute.";

/** A payment methods service that can be stopped: while down it answers Unavailable, as the BFF does. */
function paymentMethodsService() {
  const service = { down: false };
  const unavailable = () => new ConnectError("We can't reach our payment system right now.", Code.Unavailable);
  const routes = (r: ConnectRouter) =>
    r.service(PaymentMethodsService, {
      listPaymentMethods: () => {
        if (service.down) throw unavailable();
        return create(ListPaymentMethodsResponseSchema, {});
      },
      addCard: (request) => {
        if (service.down) throw unavailable();
        return {
          paymentMethod: create(PaymentMethodSchema, {
            id: "pm-1",
            name: request.name,
            type: PaymentMethodType.CARD,
            brand: CardBrand.VISA,
            lastFour: request.cardNumber.slice(-4),
            expiryMonth: request.expiryMonth,
            expiryYear: request.expiryYear,
          }),
        };
      },
    });
  return { service, routes };
}

/** Sonner's list of toasts (there while a toast is shown), which names its corner. */
function toaster() {
  return document.querySelector("[data-sonner-toaster]");
}

function banner() {
  return screen.queryAllByRole("status").find((status) => status.textContent?.includes(BANNER));
}

describe("unavailable banner", () => {
  it("explains a failed call while the service is down, and goes once it answers again", async () => {
    const { service, routes } = paymentMethodsService();
    const { user } = renderApp("/payment-methods", { session: SIGNED_IN, routes });
    await screen.findByRole("heading", { name: "No Payment Methods" });
    expect(banner()).toBeUndefined();

    service.down = true;
    await user.click(screen.getByRole("button", { name: "Add Method" }));
    const dialog = await screen.findByRole("dialog", { name: "Add Payment Method" });
    await user.type(within(dialog).getByLabelText("Card Name"), "Personal Visa");
    await user.type(within(dialog).getByLabelText("Card Number"), "4242424242424242");
    await user.selectOptions(within(dialog).getByRole("combobox", { name: "Expiry month" }), "08");
    await user.selectOptions(within(dialog).getByRole("combobox", { name: "Expiry year" }), String(new Date().getFullYear() + 1));
    await user.type(within(dialog).getByLabelText("CVV"), "123");
    await user.click(within(dialog).getByRole("button", { name: "Add Payment Method" }));

    // The screen's own failure (the spec's toast), and the banner saying why. While the banner
    // shows, toasts go to the bottom, off its Dismiss button.
    await expectToast("Error", "Failed to save payment method. Please try again.");
    await waitFor(() => expect(banner()).toBeDefined());
    await waitFor(() => expect(toaster()).toHaveAttribute("data-y-position", "bottom"));

    // Back up: the same card goes in, and the banner goes away.
    service.down = false;
    await user.click(within(dialog).getByRole("button", { name: "Add Payment Method" }));
    await waitFor(() => expect(banner()).toBeUndefined());
  });

  it("can be dismissed, and comes back with the next Unavailable", async () => {
    const { service, routes } = paymentMethodsService();
    service.down = true;
    const { user, queryClient } = renderApp("/payment-methods", { session: SIGNED_IN, routes });
    await waitFor(() => expect(banner()).toBeDefined());

    await user.click(within(banner()!).getByRole("button", { name: "Dismiss" }));
    expect(banner()).toBeUndefined();

    await queryClient.refetchQueries();
    await waitFor(() => expect(banner()).toBeDefined());
  });
});
