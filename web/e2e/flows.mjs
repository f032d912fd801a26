// Journeys the browser tests share: a fresh, verified user; logging in and out. Each test gets
// its own browser context (its own cookie jar), so users never leak between tests.
import assert from "node:assert/strict";
import { latestMessage, uniqueEmail } from "./harness.mjs";

export const PASSWORD = "Correct-Horse-42";

/** Waits for a toast with this title (sonner renders each as a list item). */
export function toast(page, title) {
  return page.locator("[data-sonner-toast]").filter({ hasText: title }).first();
}

/** The 6-digit code of the newest e-mail of `template` for `email` in the dev outbox. */
export async function codeFromOutbox(baseURL, email, template) {
  const message = await latestMessage(baseURL, email, { template });
  const code = /\b(\d{6})\b/.exec(message.body)?.[1];
  assert.ok(code, `no 6-digit code in: ${message.body}`);
  return code;
}

/**
 * Signs a new user up in `context` and enters the e-mailed code: the returned page is on the
 * dashboard, signed in.
 */
export async function signUpVerified(context, baseURL, { firstName = "Thandi", lastName = "Nkosi", prefix = "e2e", password = PASSWORD } = {}) {
  const email = uniqueEmail(prefix);
  const page = await context.newPage();
  await page.goto(`${baseURL}/signup`);
  await page.getByRole("heading", { name: "Create Your Account" }).waitFor();
  await page.getByLabel("First name").fill(firstName);
  await page.getByLabel("Last name").fill(lastName);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Confirm password").fill(password);
  await page.getByRole("button", { name: "Create Account" }).click();
  await page.getByRole("heading", { name: "Verify Your Identity" }).waitFor();
  const code = await codeFromOutbox(baseURL, email, "sign_up_code");
  await page.getByLabel("Verification code").fill(code);
  await page.getByRole("button", { name: "Verify" }).click();
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  return { page, email, password, firstName, lastName };
}

/** Fills the login form and submits it (the page must be on /login). */
export async function submitLogin(page, email, password) {
  await page.getByRole("heading", { name: "Welcome Back" }).waitFor();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Log In" }).click();
}

/** Logs in from /login and waits for the dashboard. */
export async function logIn(page, baseURL, email, password) {
  await page.goto(`${baseURL}/login`);
  await submitLogin(page, email, password);
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
}

/** Logs out with the sidebar's link and waits for the login page. */
export async function logOut(page) {
  await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Log Out" }).click();
  await page.getByRole("heading", { name: "Welcome Back" }).waitFor();
}

/**
 * On the wizard's confirmation step: a first payment to a phone asks "Do you know {name}
 * personally? ..." and keeps 'Send Money' disabled until it is ticked (scam-friction.test.mjs).
 * Waits until the wizard has decided whether to ask (it reads the sender's history) and ticks
 * the box as the sender would. Resolves whether it was asked.
 */
export async function answerRecipientQuestion(page) {
  const known = page.getByRole("checkbox", { name: /^Yes, I know .+ personally$/ });
  await known
    .or(page.locator("form[aria-label='Send money'] button[type='submit']:enabled"))
    .first()
    .waitFor({ timeout: 20_000 });
  if (!(await known.isVisible())) return false;
  if (!(await known.isChecked())) await known.check();
  return true;
}

/**
 * Clicks 'Send Money' on the wizard's confirmation step and, when the wizard asks "Confirm it's
 * you" (a transfer above R1,000 or to a phone the sender never paid), enters the password and
 * confirms. Resolves whether it was asked, once the transfer went out (or was refused).
 */
export async function clickSendMoney(page, { password = PASSWORD } = {}) {
  await answerRecipientQuestion(page);
  await page.getByRole("button", { name: "Send Money" }).click();
  const dialog = page.getByRole("dialog", { name: "Confirm it's you" });
  // Whichever comes first: the question, or what follows a transfer sent without it (the
  // processing panel, the result, or an error toast).
  await dialog
    .or(page.getByRole("heading", { name: "Processing your transfer..." }))
    .or(page.locator("#transfer-result-title"))
    .or(page.locator("[data-sonner-toast][data-type='error']"))
    .first()
    .waitFor({ timeout: 20_000 });
  if (!(await dialog.isVisible())) return false;
  await dialog.getByLabel("Password", { exact: true }).fill(password);
  await dialog.getByRole("button", { name: "Confirm and send" }).click();
  await dialog.waitFor({ state: "detached" });
  return true;
}

/** The wizard's first two steps, once its page is open: the amount, then the recipient. */
export async function fillAmountAndRecipient(page, { amount, name, phone, bank }) {
  await page.getByRole("heading", { name: "Send Money", level: 1 }).waitFor();
  await page.getByLabel("Amount to Send (ZAR)").fill(amount);
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Recipient Name").fill(name);
  await page.getByLabel("Recipient Phone Number").fill(phone);
  await page.getByRole("combobox", { name: "Bank" }).selectOption({ label: bank });
  await page.getByRole("button", { name: "Next" }).click();
}

/**
 * From the dashboard (or any signed-in page): sends `amount` rand to a recipient through the
 * wizard, paying with a new Visa added on the payment step, and waits for the result panel to
 * say the transfer completed. `beforeSend(page)` runs on the confirmation step, just before
 * 'Send Money' (to read or tick what it shows). Used by schedules.test.mjs and referral.test.mjs.
 */
export async function sendWithNewCard(
  page,
  { amount = "150", name = "Sipho Dlamini", phone = "082 123 4567", bank = "Standard Bank", cardName = "Personal Visa", beforeSend } = {},
) {
  await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Send Money", exact: true }).click();
  await fillAmountAndRecipient(page, { amount, name, phone, bank });
  await page.getByRole("button", { name: "Add Payment Method" }).click();
  const addCard = page.getByRole("dialog", { name: "Add Payment Method" });
  await addCard.getByLabel("Card Name").fill(cardName);
  await addCard.getByLabel("Card Number").pressSequentially("4242424242424242");
  await addCard.getByRole("combobox", { name: "Expiry month" }).selectOption("08");
  await addCard.getByRole("combobox", { name: "Expiry year" }).selectOption(String(new Date().getFullYear() + 1));
  await addCard.getByLabel("CVV").fill("123");
  await addCard.getByRole("button", { name: "Add Payment Method" }).click();
  await addCard.waitFor({ state: "detached" });
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("heading", { name: "Confirm your transfer" }).waitFor();
  if (beforeSend) await beforeSend(page);
  await clickSendMoney(page);
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 30_000 });
}
