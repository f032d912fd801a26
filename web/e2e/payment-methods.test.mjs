// Payment methods in Debian's Chromium against the real stack and the sandbox card processor
// (DECISIONS.md: 4242… and 5555…4444 approve; a Luhn-invalid number is refused).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, startStack } from "./harness.mjs";
import { clickSendMoney, signUpVerified, toast } from "./flows.mjs";

let stack;
let chromium;

before(async () => {
  stack = await startStack();
  chromium = await launchBrowser();
});

after(async () => {
  await chromium?.close();
  await stack?.stop();
});

const NEXT_YEAR = String(new Date().getFullYear() + 1);

async function freshUserOnPaymentMethods(prefix) {
  const context = await chromium.browser.newContext();
  const { page } = await signUpVerified(context, stack.baseURL, { prefix });
  await page.goto(`${stack.baseURL}/payment-methods`);
  await page.getByRole("heading", { name: "Payment Methods", level: 1 }).waitFor();
  return { context, page };
}

function card(page, name) {
  return page.getByRole("region", { name });
}

async function addCard(page, { name, number, month = "08", year = NEXT_YEAR, cvv = "123", makeDefault = false }) {
  await page.getByRole("button", { name: "Add Method" }).click();
  const dialog = page.getByRole("dialog", { name: "Add Payment Method" });
  await dialog.getByLabel("Card Name").fill(name);
  await dialog.getByLabel("Card Number").pressSequentially(number);
  await dialog.getByRole("combobox", { name: "Expiry month" }).selectOption(month);
  await dialog.getByRole("combobox", { name: "Expiry year" }).selectOption(year);
  await dialog.getByLabel("CVV").fill(cvv);
  if (makeDefault) await dialog.getByRole("switch", { name: "Set as default payment method" }).click();
  await dialog.getByRole("button", { name: "Add Payment Method" }).click();
  await toast(page, "Payment method added").waitFor();
  await dialog.waitFor({ state: "detached" });
  await card(page, name).waitFor();
}

async function chooseFromMenu(page, name, item) {
  await card(page, name).getByRole("button", { name: "Options" }).click();
  await page.getByRole("menuitem", { name: item }).click();
}

test("adding a card: grouping, missing fields, a refused number, then success", async () => {
  const { context, page } = await freshUserOnPaymentMethods("pm-add");
  await page.getByRole("heading", { name: "No Payment Methods" }).waitFor();
  await page.getByRole("button", { name: "Add Payment Method" }).click();
  const dialog = page.getByRole("dialog", { name: "Add Payment Method" });

  const number = dialog.getByLabel("Card Number");
  await number.pressSequentially("4242x4242424242424242");
  assert.equal(await number.inputValue(), "4242 4242 4242 4242");
  await dialog.getByLabel("Card Name").fill("Personal Visa");
  await dialog.getByRole("button", { name: "Add Payment Method" }).click();
  await toast(page, "Missing fields").waitFor();
  await page.getByText("Please fill in all required fields.").first().waitFor();

  await dialog.getByRole("combobox", { name: "Expiry month" }).selectOption("08");
  await dialog.getByRole("combobox", { name: "Expiry year" }).selectOption(NEXT_YEAR);
  await dialog.getByLabel("CVV").fill("123");
  // A Luhn-invalid number is refused by the form, under the number, before anything is sent:
  // a typo must not cost one of the AddCard attempts the BFF allows per account.
  const addCardCalls = [];
  page.on("request", (request) => {
    if (request.url().endsWith("/thumela.bff.v1.PaymentMethodsService/AddCard")) addCardCalls.push(request);
  });
  await number.fill("");
  await number.pressSequentially("4242424242424241");
  await dialog.getByRole("button", { name: "Add Payment Method" }).click();
  await dialog.getByText("Card number is invalid. Please check it and try again.").waitFor();
  assert.equal(await number.getAttribute("aria-invalid"), "true");
  assert.equal(addCardCalls.length, 0, "a Luhn-invalid number reached the server");

  // The server still checks what the form cannot (a card number hidden in the name), and its
  // refusal shows under the field it names; the dialog stays open.
  await number.fill("");
  await number.pressSequentially("4242424242424242");
  await dialog.getByLabel("Card Name").fill("Visa 4242424242424242");
  await dialog.getByRole("button", { name: "Add Payment Method" }).click();
  await toast(page, "Failed to tokenize card").waitFor();
  await dialog.getByText("Card name must not contain a card number").waitFor();
  assert.equal(await dialog.getByLabel("Card Name").getAttribute("aria-invalid"), "true");
  assert.equal(addCardCalls.length, 1);
  await dialog.getByLabel("Card Name").fill("Personal Visa");

  await number.fill("");
  await number.pressSequentially("4242424242424242");
  await dialog.getByRole("button", { name: "Add Payment Method" }).click();
  await toast(page, "Payment method added").waitFor();
  const visa = card(page, "Personal Visa");
  await visa.getByText("•••• 4242").waitFor();
  await visa.getByText(`Exp: 08/${NEXT_YEAR.slice(-2)}`).waitFor();
  await context.close();
});

test("editing changes the name only, and setting the default moves the badge", async () => {
  const { context, page } = await freshUserOnPaymentMethods("pm-edit");
  await addCard(page, { name: "Personal Visa", number: "4242424242424242", makeDefault: true });
  await addCard(page, { name: "Work Mastercard", number: "5555555555554444" });
  await card(page, "Personal Visa").getByText("Default").waitFor();

  await chooseFromMenu(page, "Work Mastercard", "Edit Details");
  const dialog = page.getByRole("dialog", { name: "Edit Payment Method" });
  assert.equal(await dialog.getByLabel("Card Number").isDisabled(), true);
  assert.equal(await dialog.getByLabel("Card Number").inputValue(), "•••• •••• •••• 4444");
  assert.equal(await dialog.getByLabel("CVV").count(), 0);
  await dialog.getByLabel("Card Name").fill("Business Mastercard");
  await dialog.getByRole("button", { name: "Update Payment Method" }).click();
  await toast(page, "Payment method saved").waitFor();
  await card(page, "Business Mastercard").waitFor();

  await chooseFromMenu(page, "Business Mastercard", "Set as Default");
  await toast(page, "Default payment method set").waitFor();
  await page.getByText("Business Mastercard is now your default payment method.").waitFor();
  await card(page, "Business Mastercard").getByText("Default").waitFor();
  await card(page, "Personal Visa").getByText("Default").waitFor({ state: "detached" });
  await context.close();
});

test("deleting a card asks first, then removes it", async () => {
  const { context, page } = await freshUserOnPaymentMethods("pm-delete");
  await addCard(page, { name: "Old Visa", number: "4242424242424242" });
  await chooseFromMenu(page, "Old Visa", "Delete");
  const dialog = page.getByRole("alertdialog", { name: "Delete Payment Method" });
  await dialog.getByText("Are you sure you want to delete this payment method? This action cannot be undone.").waitFor();
  await dialog.getByText("•••• 4242").waitFor();
  await dialog.getByRole("button", { name: "Delete" }).click();
  await toast(page, "Payment method deleted").waitFor();
  await page.getByRole("heading", { name: "No Payment Methods" }).waitFor();
  await context.close();
});

test("a card used by a transfer cannot be deleted, and the dialog stays open", async () => {
  const { context, page } = await freshUserOnPaymentMethods("pm-blocked");
  await addCard(page, { name: "Used Visa", number: "4242424242424242", makeDefault: true });

  // A transfer paid with it, through the send-money wizard.
  await page.goto(`${stack.baseURL}/send-money`);
  await page.getByRole("heading", { name: "Send Money", level: 1 }).waitFor();
  await page.getByLabel("Amount to Send (ZAR)").fill("50");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Recipient Name").fill("Sipho Dlamini");
  await page.getByLabel("Recipient Phone Number").fill("082 123 4567");
  await page.getByLabel("Bank").selectOption({ label: "Standard Bank" });
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("radio", { name: /Used Visa/ }).check();
  await page.getByRole("button", { name: "Next" }).click();
  await clickSendMoney(page);
  await toast(page, "Transfer initiated").waitFor({ timeout: 20_000 });

  await page.goto(`${stack.baseURL}/payment-methods`);
  await chooseFromMenu(page, "Used Visa", "Delete");
  const dialog = page.getByRole("alertdialog", { name: "Delete Payment Method" });
  await dialog.getByRole("button", { name: "Delete" }).click();
  await toast(page, "Cannot delete payment method").waitFor();
  await page.getByText("This payment method is used in transactions and cannot be deleted.").waitFor();
  assert.equal(await dialog.isVisible(), true);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await card(page, "Used Visa").waitFor();
  await context.close();
});
