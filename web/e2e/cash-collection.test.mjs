// Cash in the recipient's hand, in Debian's Chromium against the real stack: a new sender sends
// R500.00 to a recipient at FNB; the voucher SMS reaches /dev/outbox; the recipient withdraws
// it at the development ATM (/dev/atm, ISO 8583 over TCP to the cash-out gateway), in a browser
// of their own, after an ATM that failed to dispense (the sender is told, then corrected); and the
// sender's dashboard, open all along, shows 'Collected at …' live. A wrong
// PIN five times locks the voucher; the sender sees the lock live and a resend undoes it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { latestMessage, launchBrowser, startStack } from "./harness.mjs";
import { signUpVerified, toast } from "./flows.mjs";
import { sendMoney, voucherSms, withdraw, wrongPin } from "./atm.mjs";

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

const WRONG = "Incorrect PIN, voucher number or phone number.";
const LOCKED = "Too many incorrect attempts: this voucher is locked for 24 hours.";

test("the whole journey: sign up, add a card, send R500.00 to FNB, withdraw at the ATM, and see 'Collected at …' arrive live", async () => {
  const sender = await chromium.browser.newContext();
  const { page } = await signUpVerified(sender, stack.baseURL, { prefix: "collect" });
  const phone = "082 555 0131";

  const { panel } = await sendMoney(page, stack.baseURL, { amount: "500", name: "Thandi Mokoena", phone, bank: "FNB" });
  assert.match(panel, /received the voucher number and PIN by SMS on \+27 82 555 0131/);
  assert.match(panel, /withdraw the cash at any FNB ATM/);

  // The recipient's SMS: the voucher number, the PIN, and the bank whose ATMs pay it out.
  const { sms, number, pin } = await voucherSms(stack.baseURL, phone);
  assert.ok(pin, `no PIN in the SMS: ${sms.body}`);
  assert.match(sms.body, /any FNB ATM/);
  assert.ok(panel.includes(number), `the panel does not show voucher ${number}`);

  // The sender goes back to the dashboard and leaves it open (no reload from here on).
  await page.getByRole("link", { name: "Back to Dashboard" }).click();
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  await page.evaluate(() => {
    window.__thumelaNoReload = true;
  });
  const recent = page.getByRole("region", { name: "Recent Transactions" });
  const row = recent.getByRole("button", { name: /Thandi Mokoena/ }).first();
  await row.getByText(/^Awaiting collection · expires \w{3} \d{1,2} \w{3}$/).waitFor();

  // The recipient, at an FNB ATM, in a browser of their own.
  const recipient = await chromium.browser.newContext();
  const atm = await recipient.newPage();

  // The first ATM fails to dispense and reverses the withdrawal: the sender hears "Cash
  // collected", then its correction, and the voucher waits for the recipient again.
  const reversed = await withdraw(atm, stack.baseURL, { voucher: number, pin, phone, amount: "500", failToDispense: true });
  assert.match(reversed, /No cash was dispensed/);
  await toast(page, "Cash not dispensed").waitFor({ timeout: 20_000 });
  assert.match(
    await toast(page, "Cash not dispensed").innerText(),
    /Correction: Thandi Mokoena did not get the R500,00 at FNB ATM Sandton City\. No cash was dispensed, the withdrawal was reversed, and the voucher can still be collected\./,
  );
  await row.getByText(/^Awaiting collection · expires/).waitFor();
  // Every toast gone, so that the next "Cash collected" is the next collection's own.
  await page.waitForFunction(() => document.querySelectorAll("[data-sonner-toast]").length === 0, null, { timeout: 15_000 });

  const answer = await withdraw(atm, stack.baseURL, { voucher: number, pin, phone, amount: "500" });
  assert.equal(answer, "Please take your cash: R500.00");

  // The sender's screen changes by itself: the row, and a toast.
  await row.getByText(/^Collected at FNB ATM Sandton City, \d{2}:\d{2}$/).waitFor({ timeout: 20_000 });
  await toast(page, "Cash collected").waitFor();
  assert.match(await toast(page, "Cash collected").innerText(), /Thandi Mokoena collected R500,00 at FNB ATM Sandton City\./);
  assert.equal(await page.evaluate(() => window.__thumelaNoReload), true, "the dashboard was reloaded");

  // A second withdrawal of the same voucher is refused.
  assert.equal(await withdraw(atm, stack.baseURL, { voucher: number, pin, phone, amount: "500" }), "This voucher has already been collected.");
  await recipient.close();
  await sender.close();
});

test("a wrong PIN five times locks the voucher, even against the right PIN; the sender sees it live, and a resend gives a voucher that pays out", async () => {
  const sender = await chromium.browser.newContext();
  const { page, email } = await signUpVerified(sender, stack.baseURL, { prefix: "locked" });
  const phone = "082 555 0142";
  await sendMoney(page, stack.baseURL, { amount: "100", name: "Sipho Dlamini", phone, bank: "FNB" });
  const { number, pin } = await voucherSms(stack.baseURL, phone);
  // The sender keeps the transfer's details open on the dashboard.
  await page.goto(`${stack.baseURL}/dashboard`);
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  await page.getByRole("region", { name: "Recent Transactions" }).getByRole("button", { name: /Sipho Dlamini/ }).first().click();
  const details = page.getByRole("dialog", { name: "Transaction Details" });
  await details.getByText("Collect at any FNB ATM", { exact: false }).waitFor();
  assert.equal(await details.getByText(/^Locked until/).count(), 0);

  const recipient = await chromium.browser.newContext();
  const atm = await recipient.newPage();
  const answers = [];
  for (let i = 0; i < 5; i++) {
    answers.push(await withdraw(atm, stack.baseURL, { voucher: number, pin: wrongPin(pin), phone, amount: "100" }));
  }
  // The sixth try, with the right PIN.
  answers.push(await withdraw(atm, stack.baseURL, { voucher: number, pin, phone, amount: "100" }));
  assert.deepEqual(answers.slice(0, 4), [WRONG, WRONG, WRONG, WRONG], answers.join("\n"));
  assert.ok([WRONG, LOCKED].includes(answers[4]), `fifth answer: ${answers[4]}`);
  assert.equal(answers[5], LOCKED, answers.join("\n"));

  // The lock reaches the open page without a reload: a warning, and the dialog says the way out.
  await toast(page, "Voucher locked").waitFor();
  const notice = details.getByRole("status").filter({ hasText: "a wrong PIN or phone number was typed 5 times at an ATM" });
  await notice.waitFor();
  assert.match(await notice.innerText(), /^Locked until .+: a wrong PIN or phone number was typed 5 times at an ATM\. To let Sipho Dlamini collect now, resend the SMS for a new voucher number\.$/);
  await details.getByText(/^Locked until \w{3} \d{1,2} \w{3} \d\d:\d\d after wrong PINs$/).waitFor();
  // The sender is e-mailed too, with the way out.
  const mail = await latestMessage(stack.baseURL, email, { template: "voucher_locked" });
  assert.equal(mail.subject, "Your voucher for Sipho Dlamini is locked");
  assert.match(mail.body, /typed 5 times at ATMs for the R100,00 voucher you sent to Sipho Dlamini, so the voucher is locked until /);
  assert.match(mail.body, /choose Resend SMS/);
  await details.getByRole("button", { name: "Resend SMS" }).click();
  await details.getByRole("button", { name: "Send new voucher" }).click();
  await toast(page, "Voucher SMS sent again").waitFor();
  await notice.waitFor({ state: "detached" });
  const resent = await voucherSms(stack.baseURL, phone, { not: [number] });
  assert.equal(await withdraw(atm, stack.baseURL, { voucher: resent.number, pin: resent.pin, phone, amount: "100" }), "Please take your cash: R100.00");
  await recipient.close();
  await sender.close();
});
