// Scam friction, in Debian's Chromium against the real stack (docs/scam-friction.md). A first
// payment to a phone asks "Do you know {name} personally? ..." on the review step and keeps
// 'Send Money' disabled until the sender ticks it; a second payment to the same phone does not
// ask. 'Freeze my vouchers' on the dashboard cancels every voucher awaiting collection after a
// confirmation, and the history shows each cancelled, its refund under way or made.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, startStack } from "./harness.mjs";
import { clickSendMoney, fillAmountAndRecipient, signUpVerified, toast } from "./flows.mjs";
import { addCardInDialog, sendMoney } from "./atm.mjs";

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

const question = (name) =>
  `Do you know ${name} personally? Never send money to someone you have only met online, or to someone who says they are from a bank or the police.`;

/** From /send-money to the confirmation step; a sender without a card adds the sandbox's Visa. */
async function toConfirmation(page, { amount, name, phone, bank = "FNB" }) {
  await page.goto(`${stack.baseURL}/send-money`);
  await fillAmountAndRecipient(page, { amount, name, phone, bank });
  await page.getByRole("heading", { name: "Select Payment Method" }).waitFor();
  if (await page.getByRole("heading", { name: "No Payment Methods" }).isVisible()) {
    await page.getByRole("button", { name: "Add Payment Method" }).click();
    await addCardInDialog(page);
  }
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("heading", { name: "Confirm your transfer" }).waitFor();
}

test("a first payment to a phone asks the question and Send Money waits for the tick; the same phone again does not ask", async () => {
  const context = await chromium.browser.newContext();
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "scam" });
  const name = "Sipho Dlamini";

  await toConfirmation(page, { amount: "150", name, phone: "082 555 0171" });
  await page.getByText(question(name), { exact: true }).waitFor();
  const send = page.getByRole("button", { name: "Send Money" });
  const tick = page.getByRole("checkbox", { name: `Yes, I know ${name} personally` });
  assert.equal(await send.isDisabled(), true, "Send Money is disabled before the tick");
  // Enter on the unticked box does not send either.
  await tick.focus();
  await page.keyboard.press("Enter");
  assert.equal(await tick.isChecked(), false);
  await tick.check();
  assert.equal(await send.isEnabled(), true, "Send Money is enabled once ticked");
  await tick.uncheck();
  assert.equal(await send.isDisabled(), true, "unticked again, disabled again");
  await tick.check();
  // Then the step-up still applies (a phone never paid): clickSendMoney answers it.
  assert.equal(await clickSendMoney(page), true, "Confirm it's you still asked after the question");
  await toast(page, "Transfer initiated").waitFor();
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 30_000 });

  // The same phone, from a fresh wizard: paid before, so no question, and Send Money is enabled.
  await toConfirmation(page, { amount: "200", name, phone: "+27 82 555 0171" });
  await send.and(page.locator(":enabled")).waitFor();
  assert.equal(await page.getByText(question(name), { exact: true }).count(), 0, "no question for a phone paid before");
  assert.equal(await tick.count(), 0);
  await send.click();
  await toast(page, "Transfer initiated").waitFor();
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 30_000 });
  await context.close();
});

test("Freeze my vouchers cancels both vouchers awaiting collection after a confirmation; the history shows them cancelled", async () => {
  const context = await chromium.browser.newContext();
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "freeze" });
  const recipients = [
    { name: "Lerato Molefe", phone: "083 555 0172" },
    { name: "Ayanda Zulu", phone: "084 555 0173" },
  ];

  // Nothing to freeze yet: disabled, with the reason.
  await page.goto(`${stack.baseURL}/dashboard`);
  const freeze = page.getByRole("button", { name: "Freeze my vouchers" });
  await page.getByText("You have no vouchers waiting to be collected.").waitFor();
  assert.equal(await freeze.isDisabled(), true);

  for (const r of recipients) await sendMoney(page, stack.baseURL, { amount: "150", ...r });

  await page.goto(`${stack.baseURL}/dashboard`);
  await page.getByText(/2 vouchers waiting to be collected/).waitFor();
  await freeze.click();
  const dialog = page.getByRole("alertdialog", { name: "Freeze all your vouchers?" });
  await dialog.waitFor();
  const text = await dialog.innerText();
  assert.match(text, /Every voucher that has not been collected yet \(2 vouchers\) will be cancelled at once\./);
  assert.match(text, /Each is refunded in full, fee included, to the card that paid for it\./);
  assert.match(text, /The recipients will no longer be able to collect the cash\./);
  await dialog.getByRole("button", { name: "Yes, freeze my vouchers" }).click();
  await toast(page, "2 vouchers cancelled").waitFor();
  await dialog.waitFor({ state: "detached" });
  // Nothing is left to freeze.
  await page.getByText("You have no vouchers waiting to be collected.").waitFor();
  assert.equal(await freeze.isDisabled(), true);

  // The refunds are made by the worker a moment later, and the open page hears of each: the
  // notice, then the history showing them made without a reload (the live stream, and the BFF's
  // cached pages dropped on the same event).
  await toast(page, "Refund complete").waitFor({ timeout: 20_000 });
  await page.goto(`${stack.baseURL}/transactions`);
  await page.getByRole("heading", { name: "Transaction History", level: 1 }).waitFor();
  for (const r of recipients) {
    const row = page.getByRole("row", { name: new RegExp(r.name) });
    await row.filter({ hasText: "Cancelled · refunded" }).waitFor({ timeout: 20_000 });
  }
  await context.close();
});
