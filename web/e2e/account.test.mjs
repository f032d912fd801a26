// Account journeys in Debian's Chromium against the real stack: login failures, logout,
// password change and reset, profile edits reaching every tab and the recipient's SMS, and the
// signed-out redirect.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, smsFor, startStack } from "./harness.mjs";
import { PASSWORD, codeFromOutbox, logIn, logOut, sendWithNewCard, signUpVerified, submitLogin, toast } from "./flows.mjs";

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

async function freshUser(prefix) {
  const context = await chromium.browser.newContext();
  const user = await signUpVerified(context, stack.baseURL, { prefix });
  return { context, ...user };
}

test("a wrong password is refused at login with the server's message", async () => {
  const { context, email } = await freshUser("wrongpw");
  await context.close();

  const other = await chromium.browser.newContext();
  const page = await other.newPage();
  await page.goto(`${stack.baseURL}/login`);
  await submitLogin(page, email, "Not-The-Password-1");
  await toast(page, "Login failed").waitFor();
  await page.getByRole("alert").filter({ hasText: /invalid email or password/i }).waitFor();
  assert.match(page.url(), /\/login/);
  await other.close();
});

test("Tab goes on past a toast instead of being sent back (no keyboard trap)", async () => {
  const page = await (await chromium.browser.newContext()).newPage();
  await page.goto(`${stack.baseURL}/login`);
  await submitLogin(page, "nobody@example.com", "Not-The-Password-1");
  await toast(page, "Login failed").waitFor();
  // From the page's last control, Tab into the toasts and on until the focus leaves them.
  const inToasts = () => page.evaluate(() => document.activeElement?.closest("[data-sonner-toaster]") != null);
  let before = "";
  for (let i = 0; i < 60 && !(await inToasts()); i++) {
    before = await page.evaluate(() => document.activeElement?.outerHTML ?? "");
    await page.keyboard.press("Tab");
  }
  assert.ok(await inToasts(), "Tab never reached the toast");
  for (let i = 0; i < 5 && (await inToasts()); i++) await page.keyboard.press("Tab");
  const after = await page.evaluate(() => document.activeElement?.outerHTML ?? "");
  assert.ok(!(await inToasts()), "Tab could not leave the toast");
  assert.notEqual(after, before, "leaving the toast sent the focus back to where it came from");
  await page.context().close();
});

test("logging out ends the session", async () => {
  const { context, page } = await freshUser("logout");
  await logOut(page);
  await toast(page, "Logged out").waitFor();
  await page.goto(`${stack.baseURL}/dashboard`);
  await page.getByRole("heading", { name: "Welcome Back" }).waitFor();
  assert.match(page.url(), /\/login\?redirect=%2Fdashboard$/);
  await context.close();
});

test("changing the password: the wrong current one is refused, then the new one logs in", async () => {
  const { context, page, email } = await freshUser("changepw");
  const next = "Brand-New-Horse-77";
  await page.goto(`${stack.baseURL}/account`);
  await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
  await page.getByRole("tab", { name: "Security" }).click();
  await page.getByRole("button", { name: "Change Password" }).click();

  await page.getByLabel("Current password").fill("Not-The-Password-1");
  await page.getByLabel("New password", { exact: true }).fill(next);
  await page.getByLabel("Confirm new password").fill(next);
  await page.getByRole("button", { name: "Update Password" }).click();
  await page.getByText("Current password is incorrect").first().waitFor();

  await page.getByLabel("Current password").fill(PASSWORD);
  await page.getByRole("button", { name: "Update Password" }).click();
  await toast(page, "Password updated").waitFor();
  await page.getByRole("button", { name: "Change Password" }).waitFor(); // the form closed

  await logOut(page);
  await submitLogin(page, email, PASSWORD);
  await toast(page, "Login failed").waitFor();
  await logIn(page, stack.baseURL, email, next);
  await context.close();
});

test("editing the profile updates the badge in this tab and in another open tab, and the recipient's SMS", async () => {
  const { context, page } = await freshUser("profile");
  const otherTab = await context.newPage();
  await otherTab.goto(`${stack.baseURL}/dashboard`);
  await otherTab.getByRole("group", { name: "Signed in as Thandi Nkosi" }).waitFor();

  await page.goto(`${stack.baseURL}/account`);
  await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
  await page.getByText(/^Logged in as /).waitFor();
  await page.getByRole("button", { name: "Edit Profile" }).click();
  await page.getByLabel("First name").fill("");
  await page.getByRole("button", { name: "Save Changes" }).click();
  await page.getByText("First name is required").waitFor();

  await page.getByLabel("First name").fill("Thandiwe");
  await page.getByLabel("Phone number").fill("082 123 4567");
  await page.getByRole("button", { name: "Save Changes" }).click();
  await toast(page, "Profile updated").waitFor();
  await page.getByText("+27 82 123 4567").waitFor();
  await page.getByRole("group", { name: "Signed in as Thandiwe Nkosi" }).waitFor();

  // The other tab hears it on its live stream, without a reload.
  await otherTab.getByRole("group", { name: "Signed in as Thandiwe Nkosi" }).waitFor({ timeout: 15_000 });

  // A transfer sent after the change names the sender as the profile now does, not as at sign-up.
  const phone = "083 555 0142";
  await sendWithNewCard(page, { amount: "100", phone });
  const sms = await smsFor(stack.baseURL, phone, /Voucher number/);
  assert.match(sms.body, /^Thumela: Thandiwe N\. sent you /);
  await context.close();
});

test("a forgotten password is reset with the e-mailed code", async () => {
  const { context, email } = await freshUser("forgot");
  await context.close();
  const next = "Reset-Horse-2026";

  const visitor = await chromium.browser.newContext();
  const page = await visitor.newPage();
  await page.goto(`${stack.baseURL}/login`);
  await page.getByRole("link", { name: "Forgot password?" }).click();
  await page.getByRole("heading", { name: "Forgot Password" }).waitFor();
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send Code" }).click();
  await page.getByText("If an account exists for that email, we've sent a 6-digit code.").waitFor();

  const code = await codeFromOutbox(stack.baseURL, email, "password_reset_code");
  await page.getByLabel("Reset code").fill(code);
  await page.getByLabel("New password", { exact: true }).fill(next);
  await page.getByLabel("Confirm new password").fill(next);
  await page.getByRole("button", { name: "Reset Password" }).click();
  await toast(page, "Password reset").waitFor();
  await page.getByRole("heading", { name: "Welcome Back" }).waitFor();

  await submitLogin(page, email, next);
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  await visitor.close();
});

test("a signed-out visitor of /account logs in and comes back to /account", async () => {
  const { context, email } = await freshUser("redirect");
  await context.close();

  const visitor = await chromium.browser.newContext();
  const page = await visitor.newPage();
  await page.goto(`${stack.baseURL}/account`);
  await page.getByRole("heading", { name: "Welcome Back" }).waitFor();
  assert.match(page.url(), /\/login\?redirect=%2Faccount$/);
  await submitLogin(page, email, PASSWORD);
  await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
  assert.match(page.url(), /\/account$/);
  await page.getByText(`Logged in as ${email}`).waitFor();
  await visitor.close();
});
