// Honest forms, in Debian's Chromium against the real stack: a message from the Help Center's
// Contact Us (signed in, and from a visitor: help is public) and one from /contact each get a
// ticket (quoted in the spec's toast and on the page), are kept in the support inbox, and reach
// the support address through the dev stack's SMTP sink (listed at /dev/outbox).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { latestMessage, launchBrowser, outboxMessages, startStack, uniqueEmail } from "./harness.mjs";
import { signUpVerified, toast } from "./flows.mjs";

const SUPPORT_ADDRESS = "support@thumela.co.za";
const TICKET = /THM-[0-9A-HJKMNP-TV-Z]{6}/;

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

/** The support inbox's e-mail about `ticket`. */
async function supportMail(ticket) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const mail = (await outboxMessages(stack.baseURL)).find(
      (m) => m.channel === "email" && m.recipient === SUPPORT_ADDRESS && m.template === "support_message" && m.body.includes(ticket),
    );
    if (mail) return mail;
    if (Date.now() > deadline) {
      // Say what did arrive, to tell a wrong address from no mail at all.
      await latestMessage(stack.baseURL, SUPPORT_ADDRESS, { template: "support_message", timeoutMs: 1 });
      throw new Error(`no support_message e-mail about ${ticket}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}

test("a Contact Us message from the Help Center gets a ticket and reaches the support mailbox", async () => {
  const context = await chromium.browser.newContext();
  const { page, email } = await signUpVerified(context, stack.baseURL, { prefix: "helpdesk", firstName: "Naledi", lastName: "Mahlangu" });
  await page.goto(`${stack.baseURL}/help?tab=contact`);
  await page.getByRole("heading", { name: "Contact Us" }).waitFor();
  await page.getByText("Report Issue", { exact: true }).click();
  const subject = `Voucher not received ${Date.now().toString(36)}`;
  const message = "My sister did not get the SMS with the voucher.\nCan you check?";
  await page.getByLabel("Subject").fill(subject);
  await page.getByLabel("Message").fill(message);
  await page.getByRole("button", { name: "Submit" }).click();

  const shown = toast(page, "Feedback submitted");
  await shown.waitFor();
  const toastText = await shown.innerText();
  assert.match(toastText, /Thank you for your feedback! We'll get back to you soon\./);
  const ticket = TICKET.exec(toastText)?.[0];
  assert.ok(ticket, `no ticket in the toast: ${toastText}`);
  await page.getByText(`Your reference is ${ticket}`).first().waitFor();
  assert.equal(await page.getByLabel("Subject").inputValue(), "", "the form was not cleared");

  const mail = await supportMail(ticket);
  assert.ok(mail.subject.includes(ticket), `subject ${mail.subject} lacks the ticket`);
  for (const part of [subject, "My sister did not get the SMS with the voucher.", "Can you check?", email, "Naledi Mahlangu"]) {
    assert.ok(mail.body.includes(part), `the support mail lacks ${JSON.stringify(part)}:\n${mail.body}`);
  }
  await context.close();
});

test("a visitor reaches the Help Center from the public footer, and its Contact Us sends with the visitor's address", async () => {
  const context = await chromium.browser.newContext();
  const page = await context.newPage();
  const email = uniqueEmail("helpvisitor");
  await page.goto(`${stack.baseURL}/`);
  await page.getByRole("contentinfo").getByRole("link", { name: "Help Center" }).click();
  // Help is public: the public shell, not a detour to log in.
  await page.getByRole("heading", { level: 1, name: "Help Center" }).waitFor();
  assert.equal(new URL(page.url()).pathname, "/help");
  await page.getByRole("banner").getByRole("link", { name: "Log In" }).waitFor();

  await page.getByRole("tab", { name: "Contact Us" }).click();
  // exact: the public footer has a "Contact us" heading of its own.
  await page.getByRole("heading", { name: "Contact Us", exact: true }).waitFor();
  const subject = `Which cards work? ${Date.now().toString(36)}`;
  await page.getByLabel("Subject").fill(subject);
  await page.getByLabel("Message").fill("Can I pay with a Mastercard debit card?");
  await page.getByRole("button", { name: "Submit" }).click();
  // Nobody could reply without an address: the form asks for one first.
  await page.getByText("Please enter your email address.").waitFor();
  await page.getByLabel("Your email (so we can reply)").fill(email);
  await page.getByRole("button", { name: "Submit" }).click();

  const shown = toast(page, "Feedback submitted");
  await shown.waitFor();
  const ticket = TICKET.exec(await shown.innerText())?.[0];
  assert.ok(ticket, "no ticket in the toast");
  const mail = await supportMail(ticket);
  for (const part of [subject, "Can I pay with a Mastercard debit card?", email]) {
    assert.ok(mail.body.includes(part), `the support mail lacks ${JSON.stringify(part)}:\n${mail.body}`);
  }
  await context.close();
});

test("a visitor's /contact message gets a ticket and reaches the support mailbox with the visitor's address", async () => {
  const context = await chromium.browser.newContext();
  const page = await context.newPage();
  const email = uniqueEmail("visitor");
  await page.goto(`${stack.baseURL}/contact`);
  await page.getByRole("heading", { level: 1, name: "Contact" }).waitFor();
  await page.getByLabel("Full name").fill("Lerato Mokoena");
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Subject").fill("Which cards work?");
  await page.getByLabel("Message").fill("Can I pay with a Mastercard debit card?");
  await page.getByRole("button", { name: "Send Message" }).click();

  const shown = toast(page, "Message sent");
  await shown.waitFor();
  const ticket = TICKET.exec(await shown.innerText())?.[0];
  assert.ok(ticket, "no ticket in the toast");
  await page.getByText(`Your reference is ${ticket}`).first().waitFor();

  const mail = await supportMail(ticket);
  for (const part of ["Which cards work?", "Can I pay with a Mastercard debit card?", email, "Lerato Mokoena"]) {
    assert.ok(mail.body.includes(part), `the support mail lacks ${JSON.stringify(part)}:\n${mail.body}`);
  }
  await context.close();
});

/** Whether two bounding boxes share any pixel. */
function overlaps(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * Presses Contact Us's Submit and checks the refusal: the spec's words said once (the toast, in
 * the toaster's live region; nothing on the page), the first empty field (`firstEmpty`) focused,
 * marked and in sight, and the toast clear of the sticky header and its buttons.
 */
async function refuseMissing(page, firstEmpty) {
  await page.getByRole("button", { name: "Submit" }).click();
  const shown = toast(page, "Missing information");
  await shown.waitFor();
  assert.match(await shown.innerText(), /Please fill in all required fields\./);
  assert.equal(await page.getByText("Please fill in all required fields.").count(), 1, "the refusal is said more than once");
  assert.equal(await page.getByRole("alert").filter({ hasText: "Missing information" }).count(), 0);
  assert.equal(await shown.evaluate((el) => el.closest("[aria-live]")?.getAttribute("aria-live")), "polite");
  const field = page.getByLabel(firstEmpty, { exact: true });
  assert.equal(await field.getAttribute("aria-invalid"), "true");
  assert.ok(await field.evaluate((el) => el === document.activeElement), `${firstEmpty} does not have the focus`);

  // Settled (sonner slides a toast in), the toast is below the header, clear of its controls.
  await page.waitForFunction(() => document.querySelector("[data-sonner-toast]")?.getAttribute("data-mounted") === "true");
  await page.waitForTimeout(450);
  const toastBox = await shown.boundingBox();
  const header = page.getByRole("banner");
  const headerBox = await header.boundingBox();
  assert.ok(!overlaps(toastBox, headerBox), `the toast ${JSON.stringify(toastBox)} covers the header ${JSON.stringify(headerBox)}`);
  for (const control of await header.locator("button, a").all()) {
    if (!(await control.isVisible())) continue;
    const box = await control.boundingBox();
    assert.ok(!overlaps(toastBox, box), `the toast covers the header's ${await control.innerText()}`);
  }
  // The focused field is in sight: not under the sticky header, nor under the toast.
  const fieldBox = await field.boundingBox();
  assert.ok(!overlaps(fieldBox, headerBox), `${firstEmpty} ${JSON.stringify(fieldBox)} is under the header`);
  assert.ok(!overlaps(fieldBox, toastBox), `${firstEmpty} ${JSON.stringify(fieldBox)} is under the toast`);
}

test("Contact Us's 'Missing information' is said once, by a toast that stays off the header, at 1280 and 390 px", async () => {
  const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 720 } });
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "helpmissing" });
  await page.goto(`${stack.baseURL}/help?tab=contact`);
  await page.getByRole("heading", { name: "Contact Us" }).waitFor();
  await refuseMissing(page, "Subject");
  // Its four seconds over (a press while it leaves would only update the leaving toast).
  await toast(page, "Missing information").waitFor({ state: "detached" });

  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByLabel("Subject").fill("Voucher not received");
  await refuseMissing(page, "Message");
  await context.close();

  // A visitor's public header (theme toggle, Get Started, menu) on a phone.
  const visitor = await chromium.browser.newContext({ viewport: { width: 390, height: 844 } });
  const visitorPage = await visitor.newPage();
  await visitorPage.goto(`${stack.baseURL}/help?tab=contact`);
  await visitorPage.getByRole("heading", { name: "Contact Us", exact: true }).waitFor();
  await refuseMissing(visitorPage, "Subject");
  await visitor.close();
});
