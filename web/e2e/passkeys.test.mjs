// Passkeys in Debian's Chromium against the real stack, with Chromium's virtual authenticator
// (the DevTools protocol's WebAuthn domain) standing in for the device's fingerprint reader:
// register a passkey in Account -> Security, sign out, sign in with 'Sign in with a passkey',
// and remove it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { latestMessage, launchBrowser, startStack } from "./harness.mjs";
import { logOut, signUpVerified, toast } from "./flows.mjs";
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

async function openSecurity(page) {
  await page.goto(`${stack.baseURL}/account`);
  await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
  await page.getByRole("tab", { name: "Security" }).click();
  await page.getByRole("heading", { name: "Passkeys" }).waitFor();
}

test("a passkey is added in Account -> Security, signs in, and is removed", async () => {
  const context = await chromium.browser.newContext();
  const { page, email } = await signUpVerified(context, stack.baseURL, { prefix: "passkey" });
  const authenticator = await addVirtualAuthenticator(page);

  await openSecurity(page);
  await page.getByText("You have no passkeys yet.").waitFor();
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await toast(page, "Passkey added").waitFor();
  const list = page.getByRole("list", { name: "Your passkeys" });
  await list.getByText("Not used yet").waitFor();
  const rows = list.getByRole("listitem");
  assert.equal(await rows.count(), 1);
  const name = (await rows.first().locator("p").first().textContent()).trim();
  assert.match(name, /Chrome/, "the passkey is named after the browser it was added on");

  // A discoverable credential for this site, kept by the authenticator after verifying the user.
  const held = await authenticator.credentials();
  assert.equal(held.length, 1);
  assert.equal(held[0].rpId, "localhost");
  assert.equal(held[0].isResidentCredential, true);

  // The owner is told.
  const mail = await latestMessage(stack.baseURL, email, { template: "passkey_added" });
  assert.match(mail.subject, /passkey was added/i);
  assert.ok(mail.body.includes(name), `the e-mail names the passkey: ${mail.body}`);

  // Sign out, then back in with the passkey alone.
  await logOut(page);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  assert.match(page.url(), /\/dashboard/);

  // The list shows it was used; remove it (after a confirmation).
  await openSecurity(page);
  await list.getByText(/Last used \d/).waitFor();
  await list.getByRole("button", { name: `Remove ${name}` }).click();
  const dialog = page.getByRole("alertdialog", { name: "Remove passkey" });
  await dialog.waitFor();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "detached" });
  assert.equal(await rows.count(), 1, "Cancel keeps the passkey");
  await list.getByRole("button", { name: `Remove ${name}` }).click();
  await dialog.getByRole("button", { name: "Remove", exact: true }).click();
  await toast(page, "Passkey removed").waitFor();
  await page.getByText("You have no passkeys yet.").waitFor();

  // The device still holds the key, but Thumela no longer accepts it.
  await logOut(page);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await toast(page, "Login failed").waitFor();
  assert.match(page.url(), /\/login/);

  await authenticator.remove();
  await context.close();
});
