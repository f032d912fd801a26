// The per-sender SMS budget, in Debian's Chromium against the real stack: a sender who has sent a
// number as many SMS today as one sender may is told so when they ask to resend a voucher, and
// nothing is re-issued: the voucher they hold still pays out, and no resend is spent.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { e164, launchBrowser, outboxMessages, startStack } from "./harness.mjs";
import { signUpVerified, toast } from "./flows.mjs";
import { sendMoney, voucherSms, withdraw } from "./atm.mjs";

let stack;
let chromium;

before(async () => {
  // One SMS a number a day per sender: the voucher's own SMS spends it.
  stack = await startStack({ env: { NOTIFICATIONS_SMS_PER_RECIPIENT_PER_DAY: "1" } });
  chromium = await launchBrowser();
});

after(async () => {
  await chromium?.close();
  await stack?.stop();
});

test("a resend over the sender's SMS budget is refused with the reason, and the voucher held still pays out", async () => {
  const context = await chromium.browser.newContext();
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "budget" });
  const phone = "082 555 0177";
  await sendMoney(page, stack.baseURL, { amount: "100", name: "Ayanda Zulu", phone, bank: "FNB" });
  const voucher = await voucherSms(stack.baseURL, phone);

  await page.goto(`${stack.baseURL}/dashboard`);
  await page.getByRole("region", { name: "Recent Transactions" }).getByRole("button", { name: /Ayanda Zulu/ }).first().click();
  const dialog = page.getByRole("dialog", { name: "Transaction Details" });
  await dialog.getByText("3 resends left").waitFor();
  await dialog.getByRole("button", { name: "Resend SMS" }).click();
  await dialog.getByRole("button", { name: "Send new voucher" }).click();
  const refused = toast(page, "Resend failed");
  await refused.waitFor();
  await refused
    .getByText("You have sent this number as many SMS today as one sender may. Try again later, or change the recipient's number.")
    .waitFor();
  // Nothing was re-issued or spent, and no second SMS went out.
  await dialog.getByText("3 resends left").waitFor();
  const sms = (await outboxMessages(stack.baseURL)).filter((m) => m.channel === "sms" && m.recipient === e164(phone));
  assert.equal(sms.length, 1, `SMS to the number: ${sms.map((m) => m.body).join(" | ")}`);
  const atm = await context.newPage();
  assert.equal(
    await withdraw(atm, stack.baseURL, { voucher: voucher.number, pin: voucher.pin, phone, amount: "100" }),
    "Please take your cash: R100.00",
  );
  await context.close();
});
