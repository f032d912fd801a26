// The sender's hold on an uncollected voucher, in Debian's Chromium against the real stack:
// resending the SMS and changing the recipient's phone number each re-issue the voucher, and the
// old voucher number stops working at the ATM at once; a PIN the sender chose never travels by
// SMS (nor shows in /dev/outbox) and works at the ATM.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, outboxMessages, startStack } from "./harness.mjs";
import { signUpVerified, toast } from "./flows.mjs";
import { sendMoney, voucherSms, withdraw } from "./atm.mjs";

let stack;
let chromium;
/** One sender for the file's tests (signed up by the first test that needs one). */
let sender;

before(async () => {
  stack = await startStack();
  chromium = await launchBrowser();
});

after(async () => {
  await chromium?.close();
  await stack?.stop();
});

async function theSender() {
  if (!sender) {
    const context = await chromium.browser.newContext();
    sender = { context, ...(await signUpVerified(context, stack.baseURL, { prefix: "reissue" })) };
  }
  return sender;
}

const WRONG = "Incorrect PIN, voucher number or phone number.";

/** Opens the dashboard's details dialog of the newest transfer to `name`. */
async function openDetails(page, baseURL, name) {
  await page.goto(`${baseURL}/dashboard`);
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  await page.getByRole("region", { name: "Recent Transactions" }).getByRole("button", { name: new RegExp(name) }).first().click();
  return page.getByRole("dialog", { name: "Transaction Details" });
}

test("resending the SMS and changing the phone number void the old voucher at the ATM; the new one pays out", async () => {
  const { page } = await theSender();
  const first = "082 555 0153";
  const second = "083 555 0164";
  await sendMoney(page, stack.baseURL, { amount: "200", name: "Lerato Nkosi", phone: first, bank: "FNB" });
  const original = await voucherSms(stack.baseURL, first);

  const dialog = await openDetails(page, stack.baseURL, "Lerato Nkosi");
  await dialog.getByText("Collect at any FNB ATM with the voucher number, PIN and phone number.").waitFor();
  const resend = dialog.getByRole("button", { name: "Resend SMS" });
  await dialog.getByText("3 resends left").waitFor();
  await resend.click();
  // Nothing goes out before the sender confirms, told that the old number stops working.
  const confirm = dialog.getByRole("form", { name: "Resend the voucher SMS" });
  await confirm.getByText("The old voucher number stops working at once.", { exact: false }).waitFor();
  await confirm.getByRole("button", { name: "Send new voucher" }).click();
  await toast(page, "Voucher SMS sent again").waitFor();
  await dialog.getByText("2 resends left").waitFor();
  const resent = await voucherSms(stack.baseURL, first, { not: [original.number] });
  assert.notEqual(resent.number, original.number);
  // The resent SMS says it replaces the first, whose number no longer works; the first did not.
  assert.match(resent.sms.body, /This replaces the earlier voucher: its number no longer works\./);
  assert.doesNotMatch(original.sms.body, /replaces/);
  await dialog.getByText(resent.number).waitFor();

  const recipient = await chromium.browser.newContext();
  const atm = await recipient.newPage();
  // The first SMS's voucher no longer exists.
  assert.equal(await withdraw(atm, stack.baseURL, { voucher: original.number, pin: original.pin, phone: first, amount: "200" }), WRONG);

  // The voucher goes to another number.
  await dialog.getByRole("button", { name: "Change phone number" }).click();
  const form = dialog.getByRole("form", { name: "Change phone number" });
  const input = form.getByLabel("New phone number");
  assert.equal(await input.getAttribute("placeholder"), "+27 XX XXX XXXX");
  await input.fill(second);
  await form.getByRole("button", { name: "Send to this number" }).click();
  await toast(page, "Phone number changed").waitFor();
  await dialog.getByText("+27 83 555 0164", { exact: true }).waitFor();
  const moved = await voucherSms(stack.baseURL, second);
  assert.ok(![original.number, resent.number].includes(moved.number), "the voucher was not re-issued");
  // The new number never had the earlier SMS: its first says nothing of replacing one.
  assert.doesNotMatch(moved.sms.body, /replaces/);

  // The resent voucher stopped working too; the one at the new number pays out.
  assert.equal(await withdraw(atm, stack.baseURL, { voucher: resent.number, pin: resent.pin, phone: first, amount: "200" }), WRONG);
  assert.equal(
    await withdraw(atm, stack.baseURL, { voucher: moved.number, pin: moved.pin, phone: second, amount: "200" }),
    "Please take your cash: R200.00",
  );
  await dialog.getByText(/^Collected at FNB ATM Sandton City, \d{2}:\d{2}$/).waitFor({ timeout: 20_000 });
  // Once collected, the Withdrawal Location is where the cash came out, not the planned default.
  const location = dialog.getByText("Withdrawal Location", { exact: true }).locator("xpath=following-sibling::dd[1]");
  assert.match(await location.innerText(), /FNB ATM Sandton City/);
  assert.doesNotMatch(await location.innerText(), /Nearest ATM/);
  await recipient.close();
});

test("a PIN the sender chose is never in the SMS or /dev/outbox, and works at the ATM", async () => {
  const { page, email } = await theSender();
  const phone = "082 555 0175";
  const senderPin = "7395";
  const { confirmation, panel } = await sendMoney(page, stack.baseURL, {
    amount: "300",
    name: "Ayanda Zulu",
    phone,
    bank: "FNB",
    senderPin,
  });
  assert.match(confirmation, /Chosen by you: tell Ayanda Zulu yourself/);
  // Standing on its own: the four digits may occur by chance inside the voucher number, the
  // reference or an amount (a CI run met one), and that is not the PIN.
  const alone = new RegExp(`(?<![\\d\\w])${senderPin}(?![\\d\\w])`);
  assert.doesNotMatch(confirmation, alone, "the confirmation shows the PIN's digits");
  assert.doesNotMatch(panel, alone, "the result panel shows the PIN's digits");
  assert.match(panel, /received the voucher number by SMS on \+27 82 555 0175\. Give them your PIN yourself/);

  const { sms, number, pin } = await voucherSms(stack.baseURL, phone);
  assert.equal(pin, undefined, `the SMS carries a PIN: ${sms.body}`);
  // Nothing for this transfer in the outbox (the SMS, the sender's e-mails) holds a PIN.
  const mine = (await outboxMessages(stack.baseURL)).filter(
    (m) => m.recipient === email || String(m.recipient).replace(/\D/g, "").endsWith("825550175"),
  );
  // What a person reads (subjects and bodies), with the voucher number taken out: the PIN's four
  // digits may well occur inside the 10-digit number, an id or a timestamp by chance, and that
  // is not the PIN. Standing on its own, it would be.
  const texts = mine.map((m) => `${m.subject ?? ""}\n${m.body ?? ""}`.replaceAll(number, "<voucher>"));
  assert.ok(texts.length > 0, "no message for this transfer in /dev/outbox");
  for (const text of texts) {
    assert.doesNotMatch(text, new RegExp(`(?<!\\d)${senderPin}(?!\\d)`), "the sender's PIN is in /dev/outbox");
    assert.doesNotMatch(text, /PIN\W{0,4}\d{4}/, "a 4-digit PIN next to 'PIN' in /dev/outbox");
  }

  const recipient = await chromium.browser.newContext();
  const atm = await recipient.newPage();
  assert.equal(await withdraw(atm, stack.baseURL, { voucher: number, pin: senderPin, phone, amount: "300" }), "Please take your cash: R300.00");
  await recipient.close();
});
