// Step-up before money moves, in Debian's Chromium against the real stack: a transfer to a
// phone the sender never paid, or above R1,000, asks "Confirm it's you" just before 'Send
// Money' goes out: the password for a sender without a passkey (a wrong one shows an error and
// sends nothing), the passkey for one who added it in Account -> Security (Chromium's virtual
// authenticator). A second, smaller transfer to a phone already paid goes without asking. The
// transfers service enforces it: the dialog is how the sender gets through, not the check.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, startStack } from "./harness.mjs";
import { PASSWORD, answerRecipientQuestion, fillAmountAndRecipient, signUpVerified, toast } from "./flows.mjs";
import { addVirtualAuthenticator } from "./webauthn.mjs";

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

/** From /send-money to the confirmation step; a sender without a card adds the sandbox's Visa. */
async function toConfirmation(page, { amount, name, phone, bank = "FNB" }) {
  await page.goto(`${stack.baseURL}/send-money`);
  await fillAmountAndRecipient(page, { amount, name, phone, bank });
  await page.getByRole("heading", { name: "Select Payment Method" }).waitFor();
  if (await page.getByRole("heading", { name: "No Payment Methods" }).isVisible()) {
    await page.getByRole("button", { name: "Add Payment Method" }).click();
    const dialog = page.getByRole("dialog", { name: "Add Payment Method" });
    await dialog.getByLabel("Card Name").fill("Personal Visa");
    await dialog.getByLabel("Card Number").pressSequentially("4242424242424242");
    await dialog.getByRole("combobox", { name: "Expiry month" }).selectOption("08");
    await dialog.getByRole("combobox", { name: "Expiry year" }).selectOption(NEXT_YEAR);
    await dialog.getByLabel("CVV").fill("123");
    await dialog.getByRole("button", { name: "Add Payment Method" }).click();
    await dialog.waitFor({ state: "detached" });
  }
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("heading", { name: "Confirm your transfer" }).waitFor();
  // A first payment to a phone asks "Do you know {name} personally?" before any step-up.
  await answerRecipientQuestion(page);
}

/** The rows of the transaction history naming `name`. */
async function historyRows(page, name) {
  await page.goto(`${stack.baseURL}/transactions`);
  await page.getByRole("heading", { name: "Transaction History", level: 1 }).waitFor();
  // The table (or its empty state) is there once the first page has loaded.
  await page.getByRole("table").or(page.getByText(/no transactions/i)).first().waitFor();
  return page.getByRole("row", { name: new RegExp(name) }).count();
}

test("a new phone asks for the password: a wrong one sends nothing, the right one sends; the same phone again under R1,000 does not ask", async () => {
  const context = await chromium.browser.newContext();
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "stepup" });

  await toConfirmation(page, { amount: "150", name: "Sipho Dlamini", phone: "082 555 0161" });
  await page.getByRole("button", { name: "Send Money" }).click();
  const dialog = page.getByRole("dialog", { name: "Confirm it's you" });
  await dialog.waitFor();
  const password = dialog.getByLabel("Password", { exact: true });
  await password.waitFor();
  assert.equal(await password.evaluate((el) => el === document.activeElement), true, "the password field has the focus");

  // A wrong password: an error under the field, the dialog stays, nothing is sent.
  await password.fill("Not-The-Password-1");
  await dialog.getByRole("button", { name: "Confirm and send" }).click();
  const error = dialog.locator("#step-up-password-error");
  await error.waitFor();
  assert.match(await error.innerText(), /incorrect|wrong/i);
  assert.equal(await password.getAttribute("aria-invalid"), "true");
  // Behind the modal dialog (hidden from assistive technology meanwhile), the wizard still
  // shows its confirmation step: no transfer went out.
  assert.equal(await page.getByRole("heading", { name: "Confirm your transfer", includeHidden: true }).count(), 1);
  assert.equal(await page.locator("#transfer-result-title").count(), 0);

  // Escape cancels: still nothing sent, the wizard where it was.
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  await page.getByRole("heading", { name: "Confirm your transfer" }).waitFor();

  // Again, with the right password: the transfer goes out and completes.
  await page.getByRole("button", { name: "Send Money" }).click();
  await dialog.waitFor();
  await dialog.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await dialog.getByRole("button", { name: "Confirm and send" }).click();
  await toast(page, "Transfer initiated").waitFor();
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 30_000 });
  assert.equal(await historyRows(page, "Sipho Dlamini"), 1, "one transfer, the wrong password sent none");

  // The same phone, R200, from a freshly loaded wizard (no memory of the step-up): paid before,
  // under R1,000, so it goes without asking.
  await toConfirmation(page, { amount: "200", name: "Sipho Dlamini", phone: "+27 82 555 0161" });
  await page.getByRole("button", { name: "Send Money" }).click();
  await toast(page, "Transfer initiated").waitFor();
  assert.equal(await dialog.count(), 0, "no step-up asked for a phone paid before");
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 30_000 });
  assert.equal(await historyRows(page, "Sipho Dlamini"), 2);
  await context.close();
});

test("with a passkey added in Account -> Security, a R1,500 transfer asks for the passkey and sends", async () => {
  const context = await chromium.browser.newContext();
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "stepup-passkey" });
  const authenticator = await addVirtualAuthenticator(page);

  await page.goto(`${stack.baseURL}/account`);
  await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
  await page.getByRole("tab", { name: "Security" }).click();
  await page.getByRole("button", { name: "Add a passkey" }).click();
  // Adding a passkey asks "Confirm it's you" first: the password, for a first passkey.
  const confirm = page.getByRole("dialog", { name: "Confirm it's you" });
  await confirm.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await confirm.getByRole("button", { name: "Confirm" }).click();
  await toast(page, "Passkey added").waitFor();
  assert.equal((await authenticator.credentials()).length, 1);

  await toConfirmation(page, { amount: "1500", name: "Lerato Molefe", phone: "083 555 0162", bank: "Capitec" });
  await page.getByRole("button", { name: "Send Money" }).click();
  const dialog = page.getByRole("dialog", { name: "Confirm it's you" });
  await dialog.waitFor();
  await dialog.getByRole("button", { name: "Use passkey" }).click();
  await toast(page, "Transfer initiated").waitFor();
  await dialog.waitFor({ state: "detached" });
  assert.equal(await page.getByLabel("Password", { exact: true }).count(), 0, "the passkey, not the password, was asked for");
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 30_000 });
  const [held] = await authenticator.credentials();
  assert.ok(held.signCount >= 2, `the passkey signed the step-up (sign count ${held.signCount})`);
  await context.close();
});
