import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import {
  CardBrand,
  ListPaymentMethodsResponseSchema,
  PaymentMethodSchema,
  PaymentMethodsService,
  PaymentMethodType,
  ScheduleState,
  SchedulesService,
} from "@/gen/thumela/bff/v1/bff_pb";
import type { AddCardRequest, PaymentMethod, UpdatePaymentMethodRequest } from "@/gen/thumela/bff/v1/bff_pb";
import { badRequestDetail, errorWithDetails } from "@/test/error-details";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";

type MethodInit = MessageInitShape<typeof PaymentMethodSchema>;

const PERSONAL: MethodInit = {
  id: "pm-1",
  name: "Personal Visa",
  type: PaymentMethodType.CARD,
  brand: CardBrand.VISA,
  lastFour: "4242",
  expiryMonth: 8,
  expiryYear: 2030,
  isDefault: true,
};
const WORK: MethodInit = {
  id: "pm-2",
  name: "Work Mastercard",
  type: PaymentMethodType.CARD,
  brand: CardBrand.MASTERCARD,
  lastFour: "4444",
  expiryMonth: 1,
  expiryYear: 2029,
  isDefault: false,
};

/** An in-memory payment methods service; `override` replaces single methods. */
function backend(initial: MethodInit[], override?: (r: ConnectRouter) => void) {
  let methods: PaymentMethod[] = initial.map((method) => create(PaymentMethodSchema, method));
  const sorted = () => [...methods].sort((a, b) => Number(b.isDefault) - Number(a.isDefault));
  return (r: ConnectRouter) => {
    r.service(PaymentMethodsService, {
      listPaymentMethods: () => create(ListPaymentMethodsResponseSchema, { paymentMethods: sorted() }),
      addCard: (request) => {
        const added = create(PaymentMethodSchema, {
          id: `pm-${methods.length + 1}`,
          name: request.name,
          type: PaymentMethodType.CARD,
          brand: CardBrand.VISA,
          lastFour: request.cardNumber.slice(-4),
          expiryMonth: request.expiryMonth,
          expiryYear: request.expiryYear,
          isDefault: request.isDefault,
        });
        if (added.isDefault) methods = methods.map((m) => ({ ...m, isDefault: false }));
        methods.push(added);
        return { paymentMethod: added };
      },
      updatePaymentMethod: (request) => {
        methods = methods.map((m) => (m.id === request.id ? { ...m, name: request.name, isDefault: request.isDefault } : m));
        return { paymentMethod: methods.find((m) => m.id === request.id) };
      },
      setDefaultPaymentMethod: (request) => {
        methods = methods.map((m) => ({ ...m, isDefault: m.id === request.id }));
        return { paymentMethod: methods.find((m) => m.id === request.id) };
      },
      deletePaymentMethod: (request) => {
        methods = methods.filter((m) => m.id !== request.id);
        return {};
      },
    });
    override?.(r);
  };
}

async function openPage(initial: MethodInit[] = [PERSONAL, WORK], override?: (r: ConnectRouter) => void) {
  const app = renderApp("/payment-methods", { session: SIGNED_IN, routes: backend(initial, override) });
  await screen.findByRole("heading", { level: 1, name: "Payment Methods" });
  return app;
}

function card(name: string) {
  return screen.getByRole("region", { name });
}

async function openMenu(user: ReturnType<typeof renderApp>["user"], name: string) {
  await user.click(within(card(name)).getByRole("button", { name: `Options for ${name}` }));
  return screen.findByRole("menu");
}

async function openAddDialog(user: ReturnType<typeof renderApp>["user"]) {
  await user.click(screen.getByRole("button", { name: "Add Method" }));
  return screen.findByRole("dialog", { name: "Add Payment Method" });
}

async function fillCard(user: ReturnType<typeof renderApp>["user"], values: { name?: string; number?: string; month?: string; year?: string; cvv?: string }) {
  if (values.name) await user.type(screen.getByLabelText("Card Name"), values.name);
  if (values.number) await user.type(screen.getByLabelText("Card Number"), values.number);
  if (values.month) await user.selectOptions(screen.getByRole("combobox", { name: "Expiry month" }), values.month);
  if (values.year) await user.selectOptions(screen.getByRole("combobox", { name: "Expiry year" }), values.year);
  if (values.cvv) await user.type(screen.getByLabelText("CVV"), values.cvv);
}

const NEXT_YEAR = String(new Date().getFullYear() + 1);

describe("payment methods page", () => {
  it("says it is loading, then shows the empty state", async () => {
    let release: () => void = () => {};
    renderApp("/payment-methods", {
      session: SIGNED_IN,
      routes: (r) =>
        r.rpc(PaymentMethodsService.method.listPaymentMethods, async () => {
          await new Promise<void>((resolve) => (release = resolve));
          return create(ListPaymentMethodsResponseSchema, {});
        }),
    });
    expect(await screen.findByText("Loading your payment methods...")).toBeInTheDocument();
    expect(screen.getByText("Manage your cards and bank accounts for sending money.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Add Method" })).toBeInTheDocument();
    release();

    expect(await screen.findByRole("heading", { name: "No Payment Methods" })).toBeInTheDocument();
    expect(screen.getByText(/add your first card or bank account/i)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Add Payment Method" })).toBeInTheDocument();
  });

  it("the empty state's button opens the add dialog", async () => {
    const { user } = await openPage([]);
    await user.click(await screen.findByRole("button", { name: "Add Payment Method" }));
    expect(await screen.findByRole("dialog", { name: "Add Payment Method" })).toBeInTheDocument();
  });

  it("shows each method with its name, Default badge, brand, last four and expiry, in a two-column grid", async () => {
    await openPage();
    const list = await screen.findByRole("list", { name: "Your payment methods" });
    expect(list.className).toContain("md:grid-cols-2");
    const items = within(list).getAllByRole("listitem");
    expect(items).toHaveLength(2);

    const personal = card("Personal Visa");
    expect(within(personal).getByText("Default")).toBeInTheDocument();
    expect(within(personal).getByText("•••• 4242")).toBeInTheDocument();
    expect(within(personal).getByText("Exp: 08/30")).toBeInTheDocument();
    // The brand is on screen, beside the last four, not only in screen-reader text.
    const brand = within(personal).getByText("Visa");
    expect(brand).toBeVisible();
    expect(brand.closest(".sr-only")).toBeNull();
    expect(brand.parentElement).toHaveTextContent("Visa •••• 4242");

    const work = card("Work Mastercard");
    expect(within(work).getByText("Mastercard").closest(".sr-only")).toBeNull();
    expect(within(work).queryByText("Default")).not.toBeInTheDocument();
    expect(within(work).getByText("Exp: 01/29")).toBeInTheDocument();
  });

  it("says so when the list cannot be loaded", async () => {
    renderApp("/payment-methods", {
      session: SIGNED_IN,
      routes: (r) =>
        r.rpc(PaymentMethodsService.method.listPaymentMethods, () => {
          throw new ConnectError("something went wrong, please try again", Code.Internal);
        }),
    });
    await expectToast("Failed to load payment methods", "Please refresh the page and try again.");
    expect(screen.getByRole("button", { name: "Try again" })).toBeInTheDocument();
  });

  it("offers Edit Details and Delete for the default, and Set as Default for the others", async () => {
    const { user } = await openPage();
    await screen.findByRole("region", { name: "Personal Visa" });
    let menu = await openMenu(user, "Personal Visa");
    expect(within(menu).getAllByRole("menuitem").map((item) => item.textContent)).toEqual(["Edit Details", "Delete"]);
    await user.keyboard("{Escape}");

    menu = await openMenu(user, "Work Mastercard");
    expect(within(menu).getAllByRole("menuitem").map((item) => item.textContent)).toEqual(["Edit Details", "Set as Default", "Delete"]);
  });

  it("sets the default", async () => {
    const { user } = await openPage();
    await screen.findByRole("region", { name: "Work Mastercard" });
    const menu = await openMenu(user, "Work Mastercard");
    await user.click(within(menu).getByRole("menuitem", { name: "Set as Default" }));
    await expectToast("Default payment method set", "Work Mastercard is now your default payment method.");
    await vi.waitFor(() => expect(within(card("Work Mastercard")).getByText("Default")).toBeInTheDocument());
    expect(within(card("Personal Visa")).queryByText("Default")).not.toBeInTheDocument();
  });

  it("says so when setting the default fails", async () => {
    const { user } = await openPage(undefined, (r) =>
      r.rpc(PaymentMethodsService.method.setDefaultPaymentMethod, () => {
        throw new ConnectError("boom", Code.Internal);
      }),
    );
    await screen.findByRole("region", { name: "Work Mastercard" });
    const menu = await openMenu(user, "Work Mastercard");
    await user.click(within(menu).getByRole("menuitem", { name: "Set as Default" }));
    await expectToast("Update failed", "There was a problem setting your default payment method.");
  });
});

describe("add card dialog", () => {
  it("has the type switch, with Bank Account disabled and coming soon", async () => {
    const { user } = await openPage();
    const dialog = await openAddDialog(user);
    expect(within(dialog).getByRole("radio", { name: "Card" })).toBeChecked();
    const bank = within(dialog).getByRole("radio", { name: /Bank Account/ });
    expect(bank).toBeDisabled();
    expect(within(dialog).getByText("Coming Soon")).toBeInTheDocument();
    expect(within(dialog).getByRole("switch", { name: "Set as default payment method" })).not.toBeChecked();
    expect(within(dialog).getByRole("button", { name: "Add Payment Method" })).toBeInTheDocument();
  });

  it("keeps the card number to 16 digits grouped in fours, and the CVV to 3 digits", async () => {
    const { user } = await openPage();
    await openAddDialog(user);
    const number = screen.getByLabelText("Card Number");
    expect(number).toHaveAttribute("maxLength", "19");
    await user.type(number, "4242abc42424242-4242 99");
    expect(number).toHaveValue("4242 4242 4242 4242");

    const cvv = screen.getByLabelText("CVV");
    await user.type(cvv, "1a2b34");
    expect(cvv).toHaveValue("123");
  });

  it("offers months 01-12 and this year plus the next nine", async () => {
    const { user } = await openPage();
    await openAddDialog(user);
    const options = (name: string) =>
      within(screen.getByRole("combobox", { name }))
        .getAllByRole("option")
        .map((option) => option.textContent);
    expect(options("Expiry month")).toEqual(["MM", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12"]);
    const year = new Date().getFullYear();
    expect(options("Expiry year")).toEqual(["YY", ...Array.from({ length: 10 }, (_, i) => String((year + i) % 100).padStart(2, "0"))]);
  });

  it("says 'Missing fields' when something required is empty", async () => {
    const addCard = vi.fn();
    const { user } = await openPage(undefined, (r) => r.rpc(PaymentMethodsService.method.addCard, addCard));
    await openAddDialog(user);
    await fillCard(user, { name: "Travel card", number: "4242424242424242", month: "08" });
    await user.click(screen.getByRole("button", { name: "Add Payment Method" }));
    await expectToast("Missing fields", "Please fill in all required fields.");
    expect(screen.getByRole("combobox", { name: "Expiry year" })).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("CVV")).toHaveAttribute("aria-invalid", "true");
    expect(addCard).not.toHaveBeenCalled();
    expect(screen.getByRole("dialog", { name: "Add Payment Method" })).toBeInTheDocument();
    // Pressed again, the toast is replaced, not stacked.
    await user.click(screen.getByRole("button", { name: "Add Payment Method" }));
    await user.click(screen.getByRole("button", { name: "Add Payment Method" }));
    await vi.waitFor(() =>
      expect(screen.getAllByRole("listitem").filter((item) => (item.textContent ?? "").includes("Missing fields"))).toHaveLength(1),
    );
  });

  it("checks the number and the CVV before sending: a typo costs no AddCard attempt", async () => {
    const addCard = vi.fn();
    const { user } = await openPage(undefined, (r) => r.rpc(PaymentMethodsService.method.addCard, addCard));
    await openAddDialog(user);
    // A wrong check digit, and a CVV one digit short.
    await fillCard(user, { name: "Travel card", number: "4242424242424241", month: "08", year: NEXT_YEAR, cvv: "12" });
    await user.click(screen.getByRole("button", { name: "Add Payment Method" }));

    const number = screen.getByLabelText("Card Number");
    const cvv = screen.getByLabelText("CVV");
    await vi.waitFor(() => expect(number).toHaveAttribute("aria-invalid", "true"));
    expect(number).toHaveAccessibleDescription("Card number is invalid. Please check it and try again.");
    expect(cvv).toHaveAttribute("aria-invalid", "true");
    expect(cvv).toHaveAccessibleDescription("CVV must be 3 digits");
    expect(number).toHaveFocus();
    // Nothing is missing, so no 'Missing fields' toast: each field says what is wrong.
    expect(screen.queryByText("Missing fields")).not.toBeInTheDocument();
    expect(addCard).not.toHaveBeenCalled();

    // Corrected, the messages go as the sender types, and the card is sent.
    await user.clear(number);
    await user.type(number, "4242424242424242");
    await user.type(cvv, "3");
    await vi.waitFor(() => expect(number).not.toHaveAttribute("aria-invalid"));
    expect(screen.queryByText("CVV must be 3 digits")).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Add Payment Method" }));
    await expectToast("Payment method added");
    expect(addCard).toHaveBeenCalledTimes(1);
  });

  it.each([
    ["6011111111111117", "Only Visa and Mastercard cards are accepted"],
    ["4242424242424", "Card number must be 16 digits"],
  ])("refuses %s: %s", async (typed, message) => {
    const addCard = vi.fn();
    const { user } = await openPage(undefined, (r) => r.rpc(PaymentMethodsService.method.addCard, addCard));
    await openAddDialog(user);
    await fillCard(user, { name: "Travel card", number: typed, month: "08", year: NEXT_YEAR, cvv: "123" });
    await user.click(screen.getByRole("button", { name: "Add Payment Method" }));
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(screen.getByLabelText("Card Number")).toHaveAccessibleDescription(message);
    expect(addCard).not.toHaveBeenCalled();
  });

  it("refuses a card whose expiry month has passed, under the expiry", async () => {
    // Only Date is faked (timers run as usual): 15 June 2026 in Johannesburg.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-06-15T10:00:00+02:00"));
    try {
      const addCard = vi.fn();
      const { user } = await openPage(undefined, (r) => r.rpc(PaymentMethodsService.method.addCard, addCard));
      await openAddDialog(user);
      await fillCard(user, { name: "Old card", number: "4242424242424242", month: "05", year: "2026", cvv: "123" });
      await user.click(screen.getByRole("button", { name: "Add Payment Method" }));
      expect(await screen.findByText("This card has expired.")).toBeInTheDocument();
      for (const name of ["Expiry month", "Expiry year"]) {
        const select = screen.getByRole("combobox", { name });
        expect(select).toHaveAttribute("aria-invalid", "true");
        expect(select).toHaveAccessibleDescription("This card has expired.");
      }
      expect(addCard).not.toHaveBeenCalled();

      // This month is still good.
      await user.selectOptions(screen.getByRole("combobox", { name: "Expiry month" }), "06");
      await vi.waitFor(() => expect(screen.queryByText("This card has expired.")).not.toBeInTheDocument());
      await user.click(screen.getByRole("button", { name: "Add Payment Method" }));
      await expectToast("Payment method added");
      expect(addCard).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows the server's own field violations under their fields", async () => {
    const { user } = await openPage(undefined, (r) =>
      r.rpc(PaymentMethodsService.method.addCard, () => {
        throw errorWithDetails(
          "Card name must not contain a card number",
          Code.InvalidArgument,
          badRequestDetail([{ field: "name", description: "Card name must not contain a card number" }]),
        );
      }),
    );
    await openAddDialog(user);
    await fillCard(user, { name: "Travel card", number: "4242424242424242", month: "08", year: NEXT_YEAR, cvv: "123" });
    await user.click(screen.getByRole("button", { name: "Add Payment Method" }));
    await expectToast("Failed to tokenize card", "Card name must not contain a card number");
    const name = screen.getByLabelText("Card Name");
    expect(name).toHaveAttribute("aria-invalid", "true");
    expect(name).toHaveAccessibleDescription("Card name must not contain a card number");
  });

  it("adds the card (number without spaces), says so, closes and lists it", async () => {
    let received: AddCardRequest | undefined;
    let release: () => void = () => {};
    const { user } = await openPage([PERSONAL], (r) =>
      r.rpc(PaymentMethodsService.method.addCard, async (request) => {
        received = request;
        await new Promise<void>((resolve) => (release = resolve));
        return {
          paymentMethod: { id: "pm-9", name: request.name, type: PaymentMethodType.CARD, lastFour: "4444", expiryMonth: 8, expiryYear: Number(NEXT_YEAR), isDefault: true },
        };
      }),
    );
    await openAddDialog(user);
    await fillCard(user, { name: "Travel card", number: "5555555555554444", month: "08", year: NEXT_YEAR, cvv: "123" });
    await user.click(screen.getByRole("switch", { name: "Set as default payment method" }));
    await user.click(screen.getByRole("button", { name: "Add Payment Method" }));

    expect(await screen.findByRole("button", { name: "Processing..." })).toHaveAttribute("aria-disabled", "true");
    // Closing it now would not stop the save: Escape and the close button leave it open.
    await user.keyboard("{Escape}");
    await user.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.getByRole("dialog", { name: "Add Payment Method" })).toBeInTheDocument();
    release();
    await expectToast("Payment method added");
    expect(received).toMatchObject({
      name: "Travel card",
      cardNumber: "5555555555554444",
      expiryMonth: 8,
      expiryYear: Number(NEXT_YEAR),
      cvv: "123",
      isDefault: true,
    });
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it.each([
    [new ConnectError("Your card number is invalid.", Code.InvalidArgument), "Failed to tokenize card", "Your card number is invalid."],
    [new ConnectError("The card was declined.", Code.FailedPrecondition), "Failed to tokenize card", "The card was declined."],
    [new ConnectError("", Code.InvalidArgument), "Failed to tokenize card", "Card tokenization failed"],
    [new ConnectError("something went wrong, please try again", Code.Internal), "Error", "something went wrong, please try again"],
    [new ConnectError("Failed to fetch", Code.Unavailable), "Error", "Failed to save payment method. Please try again."],
  ])("reports a failed add (%s) and stays open", async (error, title, message) => {
    const { user } = await openPage(undefined, (r) =>
      r.rpc(PaymentMethodsService.method.addCard, () => {
        throw error;
      }),
    );
    await openAddDialog(user);
    await fillCard(user, { name: "Travel card", number: "4000000000000002", month: "08", year: NEXT_YEAR, cvv: "123" });
    await user.click(screen.getByRole("button", { name: "Add Payment Method" }));
    await expectToast(title, message);
    expect(screen.getByRole("dialog", { name: "Add Payment Method" })).toBeInTheDocument();
  });

  it("traps focus and closes on Escape and Cancel", async () => {
    const { user } = await openPage();
    const dialog = await openAddDialog(user);
    expect(dialog).toContainElement(document.activeElement as HTMLElement);
    for (let i = 0; i < 15; i++) {
      await user.tab();
      expect(dialog).toContainElement(document.activeElement as HTMLElement);
    }
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    await vi.waitFor(() => expect(screen.getByRole("button", { name: "Add Method" })).toHaveFocus());

    await openAddDialog(user);
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });
});

describe("edit payment method", () => {
  it("changes only the name and the default flag; the number and expiry are locked", async () => {
    let received: UpdatePaymentMethodRequest | undefined;
    const { user } = await openPage(undefined, (r) =>
      r.rpc(PaymentMethodsService.method.updatePaymentMethod, (request) => {
        received = request;
        return { paymentMethod: { ...WORK, name: request.name } };
      }),
    );
    await screen.findByRole("region", { name: "Work Mastercard" });
    const menu = await openMenu(user, "Work Mastercard");
    await user.click(within(menu).getByRole("menuitem", { name: "Edit Details" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit Payment Method" });

    const number = within(dialog).getByLabelText("Card Number");
    expect(number).toBeDisabled();
    expect(number).toHaveValue("•••• •••• •••• 4444");
    expect(within(dialog).getByRole("combobox", { name: "Expiry month" })).toBeDisabled();
    expect(within(dialog).getByRole("combobox", { name: "Expiry month" })).toHaveValue("01");
    expect(within(dialog).getByRole("combobox", { name: "Expiry year" })).toHaveValue("2029");
    expect(within(dialog).queryByLabelText("CVV")).not.toBeInTheDocument();

    const name = within(dialog).getByLabelText("Card Name");
    expect(name).toHaveValue("Work Mastercard");
    await user.clear(name);
    await user.type(name, "Business card");
    await user.click(within(dialog).getByRole("button", { name: "Update Payment Method" }));

    await expectToast("Payment method saved", "Your payment method has been successfully saved.");
    expect(received).toMatchObject({ id: "pm-2", name: "Business card", isDefault: false });
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  // The locked expiry looked like the editable fields (white, dark text) beside a card number
  // marked with a lock and a hint: both now read as read-only alike, in either theme.
  it("shows the locked expiry as it shows the locked card number: muted, with a lock and a hint", async () => {
    const { user } = await openPage();
    await screen.findByRole("region", { name: "Work Mastercard" });
    await user.click(within(await openMenu(user, "Work Mastercard")).getByRole("menuitem", { name: "Edit Details" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit Payment Method" });

    const number = within(dialog).getByLabelText("Card Number");
    const expiry = within(dialog).getByRole("group", { name: "Expiry Date" });
    const month = within(expiry).getByRole("combobox", { name: "Expiry month" });
    const year = within(expiry).getByRole("combobox", { name: "Expiry year" });
    expect(number).toHaveAccessibleDescription("The card number can't be changed. Add a new card instead.");
    for (const field of [number, month, year]) {
      expect(field).toBeDisabled();
      // A muted fill in the light and the dark theme, not the editable fields' white (or slate-900).
      expect(field).toHaveClass("disabled:bg-slate-100", "dark:disabled:bg-slate-800");
      // The lock inside the field, hidden from screen readers (the hint says it in words).
      const lock = field.parentElement?.querySelector("svg");
      expect(lock).toHaveAttribute("aria-hidden", "true");
    }
    for (const select of [month, year]) {
      expect(select).toHaveAccessibleDescription("The expiry date can't be changed. Add a new card instead.");
      // No dropdown arrow for a choice that cannot be made: the lock takes its place.
      expect(select).toHaveClass("disabled:appearance-none");
    }
    expect(month).toHaveValue("01");
    expect(year).toHaveValue("2029");
    // The editable name keeps the editable look.
    expect(within(dialog).getByLabelText("Card Name")).not.toHaveClass("disabled:bg-slate-100");
  });

  it("leaves the expiry editable and unmarked when adding a card", async () => {
    const { user } = await openPage();
    await user.click(await screen.findByRole("button", { name: "Add Method" }));
    const dialog = await screen.findByRole("dialog", { name: "Add Payment Method" });
    for (const name of ["Expiry month", "Expiry year"]) {
      const select = within(dialog).getByRole("combobox", { name });
      expect(select).toBeEnabled();
      expect(select).not.toHaveAccessibleDescription();
      expect(select).not.toHaveClass("disabled:bg-slate-100");
      expect(select.parentElement?.querySelector("svg")).toBeNull();
    }
    expect(within(dialog).queryByText("The expiry date can't be changed. Add a new card instead.")).not.toBeInTheDocument();
  });

  it("asks for the name", async () => {
    const update = vi.fn();
    const { user } = await openPage(undefined, (r) => r.rpc(PaymentMethodsService.method.updatePaymentMethod, update));
    await screen.findByRole("region", { name: "Work Mastercard" });
    await user.click(within(await openMenu(user, "Work Mastercard")).getByRole("menuitem", { name: "Edit Details" }));
    await user.clear(await screen.findByLabelText("Card Name"));
    await user.click(screen.getByRole("button", { name: "Update Payment Method" }));
    await expectToast("Missing fields", "Please fill in all required fields.");
    expect(update).not.toHaveBeenCalled();
  });

  it("says 'Error' with the server's message when saving fails", async () => {
    const { user } = await openPage(undefined, (r) =>
      r.rpc(PaymentMethodsService.method.updatePaymentMethod, () => {
        throw new ConnectError("Name must be at most 50 characters", Code.InvalidArgument);
      }),
    );
    await screen.findByRole("region", { name: "Work Mastercard" });
    await user.click(within(await openMenu(user, "Work Mastercard")).getByRole("menuitem", { name: "Edit Details" }));
    await user.click(await screen.findByRole("button", { name: "Update Payment Method" }));
    await expectToast("Error", "Name must be at most 50 characters");
  });
});

describe("delete payment method", () => {
  async function openDelete(override?: (r: ConnectRouter) => void) {
    const app = await openPage(undefined, override);
    await screen.findByRole("region", { name: "Work Mastercard" });
    await app.user.click(within(await openMenu(app.user, "Work Mastercard")).getByRole("menuitem", { name: "Delete" }));
    const dialog = await screen.findByRole("alertdialog", { name: "Delete Payment Method" });
    return { ...app, dialog };
  }

  it("asks first, showing the name and last four, then deletes", async () => {
    const { user, dialog } = await openDelete();
    expect(dialog).toHaveAccessibleDescription("Are you sure you want to delete this payment method? This action cannot be undone.");
    expect(within(dialog).getByText("Work Mastercard")).toBeInTheDocument();
    expect(within(dialog).getByText("•••• 4444")).toBeInTheDocument();

    await user.click(within(dialog).getByRole("button", { name: "Delete" }));
    await expectToast("Payment method deleted", "Work Mastercard has been removed from your account.");
    expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument();
    await vi.waitFor(() => expect(screen.queryByRole("region", { name: "Work Mastercard" })).not.toBeInTheDocument());
    // Its menu button went with it: the focus goes to Add Method.
    await vi.waitFor(() => expect(screen.getByRole("button", { name: "Add Method" })).toHaveFocus());
  });

  it("Escape keeps the method and gives the focus back to its card's menu button", async () => {
    const { user } = await openDelete();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument();
    const card = screen.getByRole("region", { name: "Work Mastercard" });
    await vi.waitFor(() => expect(within(card).getByRole("button", { name: /^Options for / })).toHaveFocus());
  });

  it("says 'Deleting...' while busy; Cancel keeps the method", async () => {
    let release: () => void = () => {};
    const { user, dialog } = await openDelete((r) =>
      r.rpc(PaymentMethodsService.method.deletePaymentMethod, async () => {
        await new Promise<void>((resolve) => (release = resolve));
        throw new ConnectError("boom", Code.Internal);
      }),
    );
    await user.click(within(dialog).getByRole("button", { name: "Delete" }));
    expect(await within(dialog).findByRole("button", { name: "Deleting..." })).toHaveAttribute("aria-disabled", "true");
    release();
    await expectToast("Delete failed", "There was a problem deleting your payment method.");
    expect(screen.getByRole("region", { name: "Work Mastercard" })).toBeInTheDocument();
  });

  it("keeps the dialog open when transfers use the method", async () => {
    const { user, dialog } = await openDelete((r) =>
      r.rpc(PaymentMethodsService.method.deletePaymentMethod, () => {
        throw new ConnectError("payment method is used by transfers", Code.FailedPrecondition);
      }),
    );
    await user.click(within(dialog).getByRole("button", { name: "Delete" }));
    await expectToast("Cannot delete payment method", "This payment method is used in transactions and cannot be deleted.");
    expect(screen.getByRole("alertdialog", { name: "Delete Payment Method" })).toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Delete" })).toBeEnabled();

    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument();
    expect(screen.getByRole("region", { name: "Work Mastercard" })).toBeInTheDocument();
  });

  it("says what deleting does to the scheduled sends the card pays for, ended ones aside", async () => {
    const { dialog } = await openDelete((r) =>
      r.rpc(SchedulesService.method.listSchedules, () => ({
        schedules: [
          { id: "s-1", recipientName: "Thandi Mokoena", paymentMethodId: "pm-2", state: ScheduleState.ACTIVE },
          { id: "s-2", recipientName: "Sipho Dlamini", paymentMethodId: "pm-2", state: ScheduleState.PAUSED },
          { id: "s-3", recipientName: "Lerato Khumalo", paymentMethodId: "pm-2", state: ScheduleState.ENDED },
          { id: "s-4", recipientName: "Zanele Dube", paymentMethodId: "pm-1", state: ScheduleState.ACTIVE },
        ],
      })),
    );
    expect(await within(dialog).findByRole("note")).toHaveTextContent(
      "This card pays for 2 scheduled sends (to Thandi Mokoena, Sipho Dlamini). If you delete it, each of them will fail when due, " +
        "and we'll e-mail you each time, until you schedule it again with another card.",
    );
  });

  it("says nothing of schedules when none pays with the card", async () => {
    const { dialog } = await openDelete((r) =>
      r.rpc(SchedulesService.method.listSchedules, () => ({
        schedules: [{ id: "s-4", recipientName: "Zanele Dube", paymentMethodId: "pm-1", state: ScheduleState.ACTIVE }],
      })),
    );
    expect(within(dialog).getByText("Work Mastercard")).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(within(dialog).queryByRole("note")).not.toBeInTheDocument();
  });
});
