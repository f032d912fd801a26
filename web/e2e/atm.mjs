// The recipient's half of the journey, shared by the cash-collection browser tests: the sender
// sends money in the wizard, the voucher SMS is read from /dev/outbox, and the recipient
// withdraws at the development ATM (/dev/atm: a real ISO 8583 client of the cash-out gateway,
// reached through the BFF's dev proxy as a person reaches it).
import assert from "node:assert/strict";
import { smsFor } from "./harness.mjs";
import { PASSWORD, clickSendMoney, toast } from "./flows.mjs";

const NEXT_YEAR = String(new Date().getFullYear() + 1);

/** Adds a card through the add-card dialog opened from the wizard. */
export async function addCardInDialog(page, { name = "Personal Visa", number = "4242424242424242" } = {}) {
  const dialog = page.getByRole("dialog", { name: "Add Payment Method" });
  await dialog.getByLabel("Card Name").fill(name);
  await dialog.getByLabel("Card Number").pressSequentially(number);
  await dialog.getByRole("combobox", { name: "Expiry month" }).selectOption("08");
  await dialog.getByRole("combobox", { name: "Expiry year" }).selectOption(NEXT_YEAR);
  await dialog.getByLabel("CVV").fill("123");
  await dialog.getByRole("button", { name: "Add Payment Method" }).click();
  await toast(page, "Card added successfully").waitFor();
  await dialog.waitFor({ state: "detached" });
}

/**
 * Sends money from /send-money and waits for the completed panel. A sender without a card adds
 * one from the wizard. `senderPin` ticks 'I'll give {name} the PIN myself' and types it. Returns
 * the completed panel's text once it says whether the voucher's SMS was delivered.
 */
export async function sendMoney(page, baseURL, { amount, name, phone, bank = "FNB", senderPin, password = PASSWORD }) {
  await page.goto(`${baseURL}/send-money`);
  await page.getByRole("heading", { name: "Send Money", level: 1 }).waitFor();
  await page.getByLabel("Amount to Send (ZAR)").fill(amount);
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Recipient Name").fill(name);
  await page.getByLabel("Recipient Phone Number").fill(phone);
  await page.getByRole("combobox", { name: "Bank" }).selectOption({ label: bank });
  // Each bank pays out its own vouchers: the step says where the cash is collected.
  await page.getByText(`${name} collects the cash at any ${bank} ATM.`).waitFor();
  if (senderPin) {
    await page.getByRole("checkbox", { name: `I'll give ${name} the PIN myself` }).check();
    await page.getByLabel("Choose a 4-digit PIN").fill(senderPin);
  }
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("heading", { name: "Select Payment Method" }).waitFor();
  if (await page.getByRole("heading", { name: "No Payment Methods" }).isVisible()) {
    await page.getByRole("button", { name: "Add Payment Method" }).click();
    await addCardInDialog(page);
  }
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("heading", { name: "Confirm your transfer" }).waitFor();
  const confirmation = await page.getByRole("region", { name: "Transfer details" }).innerText();
  await clickSendMoney(page, { password });
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 30_000 });
  // The panel says where the voucher's SMS is; wait for the provider's last word (delivered or not).
  const result = page.getByRole("status").filter({ hasText: "Voucher number" });
  await result.getByText(/received the voucher number|could not deliver the SMS/).waitFor({ timeout: 30_000 });
  const panel = await result.innerText();
  return { confirmation, panel };
}

/** The voucher number and PIN of an SMS body (the PIN is undefined when the SMS has none). */
export function voucherOf(body) {
  const number = /Voucher number:\s*(\d{10})/.exec(body)?.[1];
  assert.ok(number, `no voucher number in the SMS: ${body}`);
  return { number, pin: /\bPIN:\s*(\d{4})\b/.exec(body)?.[1] };
}

/**
 * The newest voucher SMS to `phone`, other than the ones whose voucher numbers are in `not`
 * (a re-issued voucher comes in a new SMS with a new number).
 */
export async function voucherSms(baseURL, phone, { not = [] } = {}) {
  const body = not.length ? new RegExp(`Voucher number: (?!${not.join("|")})\\d{10}`) : /Voucher number: \d{10}/;
  const sms = await smsFor(baseURL, phone, body, { timeoutMs: 30_000 });
  return { sms, ...voucherOf(sms.body) };
}

/**
 * Withdraws at /dev/atm in `page` and returns what the ATM's screen says (its role=status
 * region for an approval or a reversal, role=alert for a decline).
 */
export async function withdraw(page, baseURL, { bank = "FNB", voucher, pin, phone, amount, failToDispense = false }) {
  if (!page.url().endsWith("/dev/atm")) {
    await page.goto(`${baseURL}/dev/atm`);
  }
  await page.getByRole("heading", { name: "Dev ATM" }).waitFor();
  await page.getByLabel("Bank").selectOption({ label: bank });
  await page.getByLabel("ATM", { exact: true }).fill(`${bank} ATM Sandton City`);
  await page.getByLabel("Voucher number").fill(voucher);
  await page.getByLabel("PIN").fill(pin);
  await page.getByLabel("Phone number").fill(phone);
  await page.getByLabel("Amount").fill(amount);
  await page.getByLabel("Fail to dispense").setChecked(failToDispense);
  // The form posts and the ATM answers with a new page.
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.getByRole("button", { name: "Withdraw" }).click()]);
  const screen = page.locator(".screen[role=status], .screen[role=alert]");
  return (await screen.innerText()).trim();
}

/** A 4-digit PIN that is not `pin`. */
export function wrongPin(pin) {
  return String((Number(pin) + 1) % 10_000).padStart(4, "0");
}
