// Account -> Security's signed-in sessions in Debian's Chromium against the real stack: two
// browsers (two contexts, two cookie jars) signed in as one user; the first lists both and signs
// the other out, whose next navigation lands on the login page. The second browser's sign-in
// came from a device the account had not seen, so the owner got "New sign-in" e-mail.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { latestMessage, launchBrowser, startStack } from "./harness.mjs";
import { PASSWORD, logIn, signUpVerified, toast } from "./flows.mjs";

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

async function openSessions(page) {
  await page.goto(`${stack.baseURL}/account`);
  await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
  await page.getByRole("tab", { name: "Security" }).click();
  await page.getByRole("heading", { name: "Signed-in sessions" }).waitFor();
  return page.getByRole("list", { name: "Your signed-in sessions" });
}

async function waitForCount(locator, n) {
  const deadline = Date.now() + 10_000;
  while ((await locator.count()) !== n) {
    if (Date.now() > deadline) assert.fail(`expected ${n}, found ${await locator.count()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("a session signed out from Account -> Security is sent to the login page on its next navigation", async () => {
  const first = await chromium.browser.newContext();
  const { page, email } = await signUpVerified(first, stack.baseURL, { prefix: "sessions" });

  const second = await chromium.browser.newContext();
  const other = await second.newPage();
  await logIn(other, stack.baseURL, email, PASSWORD);
  // A device this account had not signed in from: the owner is told.
  const mail = await latestMessage(stack.baseURL, email, { template: "new_sign_in" });
  assert.match(mail.body, /signed in to from a new device/);

  const list = await openSessions(page);
  const rows = list.getByRole("listitem");
  await waitForCount(rows, 2);
  const current = rows.filter({ hasText: "This device" });
  await waitForCount(current, 1);
  assert.equal(await current.getByRole("button").count(), 0, "the current session has no 'Sign out' of its own");
  assert.match(await current.innerText(), /Signed in .* with an email code/);

  const otherRow = rows.filter({ hasNotText: "This device" });
  assert.match(await otherRow.innerText(), /Last seen/);
  await otherRow.getByRole("button", { name: /^Sign out / }).click();
  await toast(page, "Session signed out").waitFor();
  await waitForCount(rows, 1);

  // The other browser's next navigation finds its session gone.
  await other.goto(`${stack.baseURL}/dashboard`);
  await other.getByRole("heading", { name: "Welcome Back" }).waitFor();
  assert.match(other.url(), /\/login/);

  // This browser is still signed in.
  await page.reload();
  await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
  await first.close();
  await second.close();
});

test("'Sign out all other sessions' asks first, then signs every other browser out", async () => {
  const first = await chromium.browser.newContext();
  const { page, email } = await signUpVerified(first, stack.baseURL, { prefix: "sessions-all" });
  const others = [];
  for (let i = 0; i < 2; i++) {
    const context = await chromium.browser.newContext();
    const other = await context.newPage();
    await logIn(other, stack.baseURL, email, PASSWORD);
    others.push({ context, page: other });
  }

  const list = await openSessions(page);
  await waitForCount(list.getByRole("listitem"), 3);
  await page.getByRole("button", { name: "Sign out all other sessions" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Sign out all other sessions?" });
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await waitForCount(list.getByRole("listitem"), 3);

  await page.getByRole("button", { name: "Sign out all other sessions" }).click();
  await dialog.getByRole("button", { name: "Sign out all" }).click();
  await toast(page, "Other sessions signed out").waitFor();
  await waitForCount(list.getByRole("listitem"), 1);
  await page.getByText("You're not signed in anywhere else.").waitFor();

  for (const { context, page: other } of others) {
    await other.goto(`${stack.baseURL}/dashboard`);
    await other.getByRole("heading", { name: "Welcome Back" }).waitFor();
    assert.match(other.url(), /\/login/);
    await context.close();
  }
  await first.close();
});
