// The foundation's journey: sign up → enter the e-mailed code → land on the dashboard, in
// Debian's Chromium against the real services, PostgreSQL and NATS.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { latestMessage, launchBrowser, startStack, uniqueEmail } from "./harness.mjs";

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

test("a new user signs up, verifies the e-mailed code and sees the dashboard", async () => {
  const page = await chromium.browser.newPage();
  const email = uniqueEmail("signup");
  await page.goto(`${stack.baseURL}/signup`);
  await page.getByRole("heading", { name: "Create Your Account" }).waitFor();
  await page.getByLabel("First name").fill("Thandi");
  await page.getByLabel("Last name").fill("Nkosi");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill("Correct-Horse-42");
  await page.getByLabel("Confirm password").fill("Correct-Horse-42");
  await page.getByRole("button", { name: /create account|sign up/i }).click();

  await page.getByRole("heading", { name: "Verify Your Identity" }).waitFor();
  const message = await latestMessage(stack.baseURL, email, { template: "sign_up_code" });
  const code = /\b(\d{6})\b/.exec(message.body)?.[1];
  assert.ok(code, `no 6-digit code in: ${message.body}`);

  const verify = page.getByRole("button", { name: /verify/i });
  await page.getByLabel(/code/i).fill(code.slice(0, 5));
  assert.equal(await verify.isDisabled(), true, "Verify is enabled before 6 digits");
  await page.getByLabel(/code/i).fill(code);
  await verify.click();

  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  assert.match(page.url(), /\/dashboard$/);
  await page.getByText("Send money quickly and securely").waitFor();
  // The top bar greets the user by the names given at sign-up.
  await page.getByText("Thandi Nkosi").first().waitFor();
  await page.close();
});

test("a wrong code is refused and the user stays on the verification screen", async () => {
  const page = await chromium.browser.newPage();
  const email = uniqueEmail("wrongcode");
  await page.goto(`${stack.baseURL}/signup`);
  await page.getByLabel("First name").fill("Sipho");
  await page.getByLabel("Last name").fill("Dlamini");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill("Correct-Horse-42");
  await page.getByLabel("Confirm password").fill("Correct-Horse-42");
  await page.getByRole("button", { name: /create account|sign up/i }).click();
  await page.getByRole("heading", { name: "Verify Your Identity" }).waitFor();
  const message = await latestMessage(stack.baseURL, email, { template: "sign_up_code" });
  const code = /\b(\d{6})\b/.exec(message.body)[1];
  const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
  await page.getByLabel(/code/i).fill(wrong);
  await page.getByRole("button", { name: /verify/i }).click();
  await page.getByText(/incorrect|invalid|expired/i).first().waitFor();
  assert.match(page.url(), /\/otp-verification/);
  await page.close();
});

test("a signed-out visitor of /dashboard is sent to the login page", async () => {
  const page = await chromium.browser.newPage();
  await page.goto(`${stack.baseURL}/dashboard`);
  await page.getByRole("heading", { name: "Welcome Back" }).waitFor();
  assert.match(page.url(), /\/login/);
  await page.close();
});
