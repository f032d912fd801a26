// Sending money in Debian's Chromium against the real stack: a fresh user adds a card from the
// wizard, sends R150.00 (the first transfer is free), the sandbox processor charges the card
// (about 1 s), the recipient's SMS with the voucher reaches the dev stack's SMS provider
// stand-in (listed at /dev/outbox), and the transfer shows on the dashboard and in the history.
// The details dialog follows the SMS live to 'delivered', or to the failure of a number the
// stand-in refuses. A card without funds ends in 'Transfer Failed' ('Payment processing failed',
// the decline below it, and one 'Failed to process transaction' toast). Amounts typed as en-ZA
// writes them ("1 250", "1,250", "20,00") are the amounts meant.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { clearSmsFailures, failSms, latestMessage, launchBrowser, smsFor, startStack } from "./harness.mjs";
import { clickSendMoney, fillAmountAndRecipient, sendWithNewCard, signUpVerified, toast } from "./flows.mjs";

let stack;
let chromium;

before(async () => {
  stack = await startStack();
  chromium = await launchBrowser();
});

after(async () => {
  await clearSmsFailures(stack.baseURL).catch(() => {});
  await chromium?.close();
  await stack?.stop();
});

const NEXT_YEAR = String(new Date().getFullYear() + 1);

/** Adds a card through the add-card dialog opened from the wizard. */
async function addCardInDialog(page, { name, number }) {
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

test("a new user adds a card in the wizard and sends R150.00; the recipient gets the voucher by SMS; the first transfer is free", async () => {
  const context = await chromium.browser.newContext();
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "send" });

  await page.getByRole("region", { name: "New Transaction" }).getByRole("link", { name: "Send Money" }).click();
  await fillAmountAndRecipient(page, { amount: "150", name: "Sipho Dlamini", phone: "082 123 4567", bank: "Standard Bank" });

  // The quote: the first transfer's fee is struck through.
  const summary = page.getByRole("region", { name: "Transaction Summary" });
  await summary.getByText("First transfer free!").waitFor();
  assert.match(await summary.innerText(), /Total amount\s*R150,00/);

  // No cards yet: add one from the wizard; it is selected for this transfer.
  await page.getByRole("heading", { name: "No Payment Methods" }).waitFor();
  await page.getByRole("button", { name: "Add Payment Method" }).click();
  await addCardInDialog(page, { name: "Personal Visa", number: "4242424242424242" });
  const radio = page.getByRole("radio", { name: "Personal Visa (•••• 4242)" });
  await radio.waitFor();
  assert.equal(await radio.isChecked(), true);
  await page.getByRole("button", { name: "Next" }).click();

  const details = page.getByRole("region", { name: "Transfer details" });
  await details.getByText("Personal Visa").waitFor();
  await page.getByRole("region", { name: "Recipient" }).getByText("Standard Bank", { exact: true }).waitFor();
  await clickSendMoney(page);

  // Accepted (pending), charged by the sandbox processor, then completed with a voucher.
  await page.getByRole("heading", { name: "Processing your transfer..." }).waitFor();
  await toast(page, "Transfer initiated").waitFor();
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 20_000 });
  // The panel says the recipient received the SMS only once the provider reported it delivered.
  const result = page.getByRole("status").filter({ hasText: "Voucher number" });
  await result.getByText(/received the voucher number and PIN by SMS on \+27 82 123 4567\./).waitFor({ timeout: 20_000 });
  const panel = await result.innerText();
  const voucher = /Voucher number\s*(\d{10})/.exec(panel)?.[1];
  assert.ok(voucher, `no 10-digit voucher number in: ${panel}`);
  assert.match(panel, /Valid until/);
  assert.match(panel, /Fee\s*R0,00 \(first transfer free\)/);
  assert.match(panel, /Total\s*R150,00/);

  // The recipient's SMS carries the same voucher number (and a PIN the sender never sees).
  const sms = await smsFor(stack.baseURL, "082 123 4567", /Voucher number/);
  assert.ok(sms.body.includes(voucher), `voucher ${voucher} not in the SMS: ${sms.body}`);
  assert.ok(!panel.includes("PIN:"), "the sender's screen must not show the PIN");

  // The dashboard's newest row, and its details dialog with the stored (waived) fee.
  await page.getByRole("link", { name: "Back to Dashboard" }).click();
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  await page.getByRole("link", { name: /Resend R150,00 to Sipho Dlamini/ }).waitFor();
  const recent = page.getByRole("region", { name: "Recent Transactions" });
  const row = recent.getByRole("button", { name: /Sipho Dlamini/ });
  await row.getByRole("img", { name: "Completed" }).waitFor();
  await row.click();
  const dialog = page.getByRole("dialog", { name: "Transaction Details" });
  const text = await dialog.innerText();
  assert.match(text, /Fee\s*R0,00/);
  assert.match(text, /Total\s*R150,00/);
  assert.match(text, /COMPLETED/);
  assert.match(text, /Awaiting collection/);
  assert.match(text, /Personal Visa \(•••• 4242\)/);
  assert.match(text, /Nearest ATM/);
  await dialog.getByRole("button", { name: "Close" }).click();

  // The history row.
  await page.goto(`${stack.baseURL}/transactions`);
  await page.getByRole("heading", { name: "Transaction History", level: 1 }).waitFor();
  const historyRow = page.getByRole("row", { name: /Sipho Dlamini/ });
  await historyRow.waitFor();
  const rowText = await historyRow.innerText();
  assert.match(rowText, /R150,00/);
  assert.match(rowText, /Fee waived/); // the first transfer is free, as the details say
  assert.match(rowText, /Completed/);
  await context.close();
});

test("the browser's Back and Forward move between the wizard's steps; once sent, Back leaves the wizard", async () => {
  // 1280 px: sendWithNewCard opens the wizard from the sidebar, which is hidden at 375 px.
  const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "history" });
  const hasStep = () => new URL(page.url()).searchParams.has("step");

  // A later step typed into the URL is not shown: the wizard starts at the amount, prefilled.
  await page.goto(`${stack.baseURL}/send-money?amount=150&step=4`);
  const amount = page.getByLabel("Amount to Send (ZAR)");
  await amount.waitFor();
  assert.equal(await amount.inputValue(), "150");
  await page.waitForURL((url) => !url.searchParams.has("step"));
  await page.goto(`${stack.baseURL}/dashboard`);
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();

  await sendWithNewCard(page, {
    name: "Lerato Mokoena",
    phone: "083 555 0178",
    beforeSend: async () => {
      assert.equal(new URL(page.url()).searchParams.get("step"), "4");
      const card = page.getByRole("radio", { name: "Personal Visa (•••• 4242)" });
      await page.goBack();
      await card.waitFor();
      assert.equal(await card.isChecked(), true);
      await page.goBack();
      const name = page.getByLabel("Recipient Name");
      await name.waitFor();
      assert.equal(await name.inputValue(), "Lerato Mokoena");
      assert.equal(await page.getByLabel("Recipient Phone Number").inputValue(), "083 555 0178");
      // The step's first field has the focus, as after the wizard's own Back button.
      await page.waitForFunction(() => document.activeElement?.id === "recipient-name");
      await page.goBack();
      assert.equal(await amount.inputValue(), "150");
      assert.equal(hasStep(), false);
      await page.goForward();
      await name.waitFor();
      await page.goForward();
      await card.waitFor();
      await page.goForward();
      await page.getByRole("heading", { name: "Confirm your transfer" }).waitFor();
      // The wizard's own Back is the browser's: Forward undoes it.
      await page.getByRole("button", { name: "Back" }).click();
      await card.waitFor();
      await page.goForward();
      await page.getByRole("heading", { name: "Confirm your transfer" }).waitFor();
    },
  });

  // Sent: the history is back on the wizard's first entry. Forward into the sent run's steps
  // keeps the result; Back leaves for the dashboard, never to the confirmation.
  const success = page.getByRole("heading", { name: "Transfer Successful" });
  await page.waitForURL((url) => !url.searchParams.has("step"));
  await page.goForward();
  await page.waitForURL((url) => !url.searchParams.has("step"));
  await success.waitFor();
  await page.goBack();
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  assert.equal(new URL(page.url()).pathname, "/dashboard");
  // Forward again opens a fresh wizard, and no further.
  await page.goForward();
  await amount.waitFor();
  assert.equal(await amount.inputValue(), "");
  await page.goForward();
  await page.waitForURL((url) => !url.searchParams.has("step"));
  await amount.waitFor();
  assert.equal(await page.getByRole("heading", { name: "Confirm your transfer" }).count(), 0);
  await context.close();
});

test("a card without funds ends in 'Transfer Failed'; Try Again with a good card completes, and the next transfer pays the fee", async () => {
  const context = await chromium.browser.newContext();
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "declined" });

  await page.goto(`${stack.baseURL}/send-money?amount=100&recipient=mom`);
  await page.getByRole("button", { name: "Next" }).click();
  assert.equal(await page.getByLabel("Recipient Name").inputValue(), "Nomvula Dlamini");
  await page.getByRole("combobox", { name: "Bank" }).selectOption({ label: "Capitec" });
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("button", { name: "Add Payment Method" }).click();
  // The sandbox accepts this card but declines every charge for insufficient funds.
  await addCardInDialog(page, { name: "Empty Visa", number: "4000000000009995" });
  await page.getByRole("button", { name: "Next" }).click();
  await clickSendMoney(page);
  await page.getByRole("heading", { name: "Transfer Failed" }).waitFor({ timeout: 20_000 });
  // The panel: the supplied error, then the processor's reason as its detail.
  const panel = page.getByRole("status").filter({ has: page.getByRole("heading", { name: "Transfer Failed" }) });
  await panel.getByText("Payment processing failed", { exact: true }).waitFor();
  await panel.getByText("Your card has insufficient funds.", { exact: true }).waitFor();
  // The transfer was pending when the panel opened (the charge runs after): one toast says it failed.
  const failedToast = toast(page, "Failed to process transaction");
  await failedToast.waitFor();
  assert.match(await failedToast.innerText(), /Your card has insufficient funds\./);
  assert.equal(await page.locator("[data-sonner-toast]").filter({ hasText: "Failed to process transaction" }).count(), 1);

  await page.getByRole("button", { name: "Try Again" }).click();
  await page.getByRole("button", { name: "Add New Card" }).click();
  await addCardInDialog(page, { name: "Good Mastercard", number: "5555555555554444" });
  await page.getByRole("button", { name: "Next" }).click();
  await clickSendMoney(page);
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 20_000 });
  await smsFor(stack.baseURL, "082 555 0143", /Voucher number/);

  // After a completed transfer, the next one pays the bank's fee plus 0.3 %.
  await page.getByRole("button", { name: "Send Another Transfer" }).click();
  await fillAmountAndRecipient(page, { amount: "200", name: "Thabo Dlamini", phone: "081 555 0196", bank: "ABSA" });
  const summary = page.getByRole("region", { name: "Transaction Summary" });
  await summary.getByText("Total fees").waitFor();
  // ABSA: R8.50 + 0.3 % of R200.00 = R9.10.
  await summary.getByText("R9,10").waitFor();
  assert.equal(await summary.getByText("First transfer free!").count(), 0);
  await context.close();
});

test("the amount reads rand as South Africans type it: '1 000', '1,000', '20,00', '150,5'", async () => {
  const context = await chromium.browser.newContext({ locale: "en-ZA" });
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "amounts" });
  await page.goto(`${stack.baseURL}/send-money`);
  await page.getByRole("heading", { name: "Send Money", level: 1 }).waitFor();
  const amount = page.getByLabel("Amount to Send (ZAR)");
  assert.equal(await amount.getAttribute("placeholder"), "e.g. 500");
  const summary = page.getByRole("region", { name: "Transaction Summary" });
  // Typed key by key: the field keeps the spaces and commas (a number input dropped them, so
  // "20,00" was R2 000), and the summary quotes the amount meant.
  for (const [typed, shown] of [
    ["1 000", "R1 000,00"],
    ["20,00", "R20,00"],
    ["1,000", "R1 000,00"],
    ["150,5", "R150,50"],
    ["1 000,00", "R1 000,00"],
  ]) {
    await amount.fill("");
    await amount.pressSequentially(typed);
    assert.equal(await amount.inputValue(), typed);
    const sendAmount = summary.locator("div", { has: page.locator("dt", { hasText: "Send amount" }) }).locator("dd");
    const deadline = Date.now() + 10_000;
    // Polling a state (the debounced quote), not a fixed wait.
    while ((await sendAmount.textContent())?.replace(/\s/g, " ") !== shown && Date.now() < deadline) await page.waitForTimeout(100);
    assert.equal((await sendAmount.textContent())?.replace(/\s/g, " "), shown, `typed ${typed}`);
  }
  // "150,5" is R150,50: not a multiple of R10, refused on the step in its words.
  await amount.fill("");
  await amount.pressSequentially("150,5");
  await page.getByRole("button", { name: "Next" }).click();
  await page.locator("#send-amount-error").filter({ hasText: "ATMs pay out notes: choose an amount in multiples of R10." }).waitFor();
  await amount.fill("1 000");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Recipient Name").waitFor();
  await context.close();
});

/** Opens the dashboard's newest row's details dialog. */
async function openNewestDetails(page, recipient) {
  const recent = page.getByRole("region", { name: "Recent Transactions" });
  await recent.getByRole("button", { name: new RegExp(recipient) }).first().click();
  return page.getByRole("dialog", { name: "Transaction Details" });
}

/** The Johannesburg time of day now, as the dialog tells it (HH:MM). */
function saClock(date = new Date()) {
  return new Intl.DateTimeFormat("en-ZA", { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: "Africa/Johannesburg" }).format(date);
}

test("the details dialog, opened while the transfer is processing, shows the recipient's SMS delivered, live", async () => {
  const context = await chromium.browser.newContext();
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "smslive" });
  await page.goto(`${stack.baseURL}/send-money`);
  await fillAmountAndRecipient(page, { amount: "120", name: "Ayanda Zulu", phone: "082 555 0121", bank: "FNB" });
  await page.getByRole("button", { name: "Add Payment Method" }).click();
  // The sandbox approves this card after about 10 s: time to open the dialog before the
  // voucher, and so before the SMS, exists.
  await addCardInDialog(page, { name: "Slow Visa", number: "4000000000000259" });
  await page.getByRole("button", { name: "Next" }).click();
  await clickSendMoney(page);
  await toast(page, "Transfer initiated").waitFor();
  await page.getByRole("link", { name: "Back to Dashboard" }).click();
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();

  // Mark the document: a reload would lose the mark.
  await page.evaluate(() => {
    window.__thumelaNoReload = true;
  });
  const dialog = await openNewestDetails(page, "Ayanda Zulu");
  const before = await dialog.innerText();
  assert.doesNotMatch(before, /COMPLETED/, "the transfer completed before the dialog opened; the test needs the slow card");
  assert.doesNotMatch(before, /SMS delivered/);

  // The transfer completes, the voucher SMS goes out, and the provider's delivery report comes
  // back: all of it reaches the open dialog by the live stream.
  await dialog.getByText("COMPLETED").waitFor({ timeout: 30_000 });
  const delivered = dialog.getByText(/^SMS delivered to \+27 82 555 0121 (at \d{2}:\d{2}|on .+ at \d{2}:\d{2})$/);
  await delivered.waitFor({ timeout: 30_000 });
  const text = await delivered.innerText();
  const shown = /(\d{2}:\d{2})$/.exec(text)[1];
  // Within a minute of now, Johannesburg time (the minute may turn between the two reads).
  assert.ok([saClock(new Date(Date.now() - 60_000)), saClock()].includes(shown), `${text}: not the time of delivery (now ${saClock()})`);
  assert.equal(await page.evaluate(() => window.__thumelaNoReload), true, "the page was reloaded");

  // The stand-in really sent it: the voucher in the SMS is the dialog's.
  const voucher = /Voucher number\s*(\d{10})/.exec(await dialog.innerText())?.[1];
  assert.ok(voucher, "no voucher number in the dialog");
  const sms = await smsFor(stack.baseURL, "082 555 0121", /Voucher number/);
  assert.ok(sms.body.includes(voucher), `voucher ${voucher} not in the SMS: ${sms.body}`);
  assert.equal(sms.status, "delivered");
  await context.close();
});

test("a number the SMS provider refuses for good shows 'We could not deliver the SMS', and warns the sender on the page and by e-mail", async () => {
  await failSms(stack.baseURL, "082 555 0177", "permanent");
  const context = await chromium.browser.newContext();
  const { page, email } = await signUpVerified(context, stack.baseURL, { prefix: "smsfail" });
  await page.goto(`${stack.baseURL}/send-money`);
  await fillAmountAndRecipient(page, { amount: "50", name: "Bongani Khumalo", phone: "082 555 0177", bank: "Nedbank" });
  await page.getByRole("button", { name: "Add Payment Method" }).click();
  await addCardInDialog(page, { name: "Personal Visa", number: "4242424242424242" });
  await page.getByRole("button", { name: "Next" }).click();
  // The warning comes whenever the report does, on whichever page is open: watched from now on.
  // (Settled into a value at once, so that a timeout is this test's failure, not an unhandled one.)
  const warned = toast(page, "Voucher SMS not delivered").waitFor({ timeout: 30_000 }).then(() => undefined, (error) => error);
  await clickSendMoney(page);
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 20_000 });
  // The result panel stops short of saying the recipient has the voucher, and says what to do.
  await page
    .getByRole("status")
    .filter({ hasText: "Voucher number" })
    .getByText(/We could not deliver the SMS with the voucher number and PIN to \+27 82 555 0177\. Open this transfer/)
    .waitFor({ timeout: 30_000 });

  await page.getByRole("link", { name: "Back to Dashboard" }).click();
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  const dialog = await openNewestDetails(page, "Bongani Khumalo");
  await dialog.getByText("We could not deliver the SMS to +27 82 555 0177").waitFor({ timeout: 30_000 });
  const notWarned = await warned;
  if (notWarned) throw notWarned;
  const sms = await smsFor(stack.baseURL, "082 555 0177", /Voucher number/);
  assert.equal(sms.status, "failed");
  // And by e-mail, for a sender who has left the page.
  const mail = await latestMessage(stack.baseURL, email, { template: "voucher_sms_failed" });
  assert.equal(mail.subject, "We could not deliver Bongani Khumalo's voucher SMS");
  assert.match(mail.body, /could not be delivered to \+27 82 555 0177\./);
  assert.match(mail.body, /Change phone number/);
  await context.close();
});
