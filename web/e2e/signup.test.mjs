// The foundation's journey: sign up → enter the e-mailed code → land on the dashboard, in
// Debian's Chromium against the real services, PostgreSQL and NATS.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { latestMessage, launchBrowser, startStack, uniqueEmail } from "./harness.mjs";
import { toast } from "./flows.mjs";

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

test("a wrong code is refused and the user stays on the verification screen; the right one then opens the dashboard without the stale error", async () => {
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
  await toast(page, "Verification failed").waitFor();

  await page.getByLabel(/code/i).fill(code);
  await page.getByRole("button", { name: /verify/i }).click();
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  // The wrong code's toast went with the success (well before its own 4 s are up).
  await toast(page, "Verification failed").waitFor({ state: "detached", timeout: 1500 });
  await page.close();
});

test("signing up with an address that has an account looks like any sign-up, and its owner is told", async () => {
  // The owner's account, verified.
  const owner = await chromium.browser.newPage();
  const email = uniqueEmail("taken");
  await signUpForm(owner, { first: "Thandi", last: "Nkosi", email });
  await owner.getByRole("heading", { name: "Verify Your Identity" }).waitFor();
  const codeMail = await latestMessage(stack.baseURL, email, { template: "sign_up_code" });
  await owner.getByLabel(/code/i).fill(/\b(\d{6})\b/.exec(codeMail.body)[1]);
  await owner.getByRole("button", { name: /verify/i }).click();
  await owner.getByRole("heading", { name: "Quick Actions" }).waitFor();
  await owner.close();

  // A stranger tries the same address: the same screens and words as a new address, no
  // "already exists".
  const stranger = await (await chromium.browser.newContext()).newPage();
  await signUpForm(stranger, { first: "Mallory", last: "Stranger", email });
  await stranger.getByRole("heading", { name: "Verify Your Identity" }).waitFor();
  assert.match(stranger.url(), /\/otp-verification/);
  await stranger.getByText("Check your email").first().waitFor();
  const body = await stranger.locator("body").innerText();
  assert.doesNotMatch(body, /already (exists|registered|verified)|account (has been )?created/i);

  // The owner hears about it, by their own name, with the way back in.
  const attempt = await latestMessage(stack.baseURL, email, { template: "sign_up_attempt" });
  assert.match(attempt.body, /Hi Thandi,/);
  assert.match(attempt.body, /Forgot password\?/);
  assert.doesNotMatch(attempt.body, /Mallory/);

  // A code typed for that address is refused in the words any wrong code gets.
  await stranger.getByLabel(/code/i).fill("000000");
  await stranger.getByRole("button", { name: /verify/i }).click();
  await stranger.getByText("The code is incorrect or has expired. Please check it or request a new one.").first().waitFor();
  await stranger.context().close();
});

test("a name with control or direction-changing characters is refused with a clear reason", async () => {
  const page = await chromium.browser.newPage();
  await signUpForm(page, { first: "Thandi", last: "\u202eisokN", email: uniqueEmail("bidi") });
  await page.getByText("Names may only contain letters, spaces, apostrophes, hyphens and full stops.").first().waitFor();
  assert.match(page.url(), /\/signup/);
  await page.close();
});

async function signUpForm(page, { first, last, email }) {
  await page.goto(`${stack.baseURL}/signup`);
  await page.getByRole("heading", { name: "Create Your Account" }).waitFor();
  await page.getByLabel("First name").fill(first);
  await page.getByLabel("Last name").fill(last);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill("Correct-Horse-42");
  await page.getByLabel("Confirm password").fill("Correct-Horse-42");
  await page.getByRole("button", { name: /create account|sign up/i }).click();
}

test("a signed-out visitor of /dashboard is sent to the login page", async () => {
  const page = await chromium.browser.newPage();
  await page.goto(`${stack.baseURL}/dashboard`);
  await page.getByRole("heading", { name: "Welcome Back" }).waitFor();
  assert.match(page.url(), /\/login/);
  await page.close();
});
