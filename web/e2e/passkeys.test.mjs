// Passkeys in Debian's Chromium against the real stack, with Chromium's virtual authenticator
// (the DevTools protocol's WebAuthn domain) standing in for the device's fingerprint reader:
// register a passkey in Account -> Security, sign out, sign in with 'Sign in with a passkey',
// and remove it; and the e-mail field's autofill (conditional mediation) signing in with it.
//
// The virtual authenticator (automatic presence) answers the login page's autofill request at
// once, as if the user had picked the passkey in the autofill list: a test of the button makes
// its pages a browser without passkey autofill (withoutPasskeyAutofill), or the autofill would
// sign in before the button is clicked.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { latestMessage, launchBrowser, startStack } from "./harness.mjs";
import { PASSWORD, logOut, signUpVerified, toast } from "./flows.mjs";
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

/** Pages of `context` report no passkey autofill (conditional mediation), as some browsers do. */
async function withoutPasskeyAutofill(context) {
  await context.addInitScript(() => {
    if (window.PublicKeyCredential) window.PublicKeyCredential.isConditionalMediationAvailable = async () => false;
  });
}

/**
 * Adds a passkey in Account -> Security, through "Confirm it's you" with the password (a
 * password-only user's first passkey), and resolves its name, once listed.
 */
async function addPasskey(page) {
  await openSecurity(page);
  await page.getByText("You have no passkeys yet.").waitFor();
  await page.getByRole("button", { name: "Add a passkey" }).click();
  const dialog = page.getByRole("dialog", { name: "Confirm it's you" });
  await dialog.waitFor();
  await dialog.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await toast(page, "Passkey added").waitFor();
  await dialog.waitFor({ state: "detached" });
  const list = page.getByRole("list", { name: "Your passkeys" });
  await list.getByText("Not used yet").waitFor();
  const rows = list.getByRole("listitem");
  assert.equal(await rows.count(), 1);
  return (await rows.first().locator("p").first().textContent()).trim();
}

async function openSecurity(page) {
  await page.goto(`${stack.baseURL}/account`);
  await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
  await page.getByRole("tab", { name: "Security" }).click();
  await page.getByRole("heading", { name: "Passkeys" }).waitFor();
}

test("a passkey is added in Account -> Security, signs in, and is removed", async () => {
  const context = await chromium.browser.newContext();
  await withoutPasskeyAutofill(context); // only the button signs in here
  const { page, email } = await signUpVerified(context, stack.baseURL, { prefix: "passkey" });
  const authenticator = await addVirtualAuthenticator(page);

  // The session cookie alone cannot add a passkey: the API refuses to begin without "Confirm
  // it's you", whatever the page does.
  await openSecurity(page);
  const refused = await page.evaluate(async () => {
    const res = await fetch("/thumela.bff.v1.SecurityService/BeginPasskeyRegistration", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1" },
      body: "{}",
    });
    return { status: res.status, body: await res.json() };
  });
  assert.equal(refused.body.code, "failed_precondition", JSON.stringify(refused));
  assert.equal(refused.body.message, "Please confirm it's you before adding a passkey.");

  const name = await addPasskey(page);
  const list = page.getByRole("list", { name: "Your passkeys" });
  const rows = list.getByRole("listitem");
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

test("with a passkey added, the login page's e-mail autofill signs in with it, no button clicked", async () => {
  const context = await chromium.browser.newContext();
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "passkey-autofill" });
  const authenticator = await addVirtualAuthenticator(page);
  await addPasskey(page);

  // Sign out: the login page starts the autofill request, which the authenticator answers.
  const finished = page.waitForResponse((res) => res.url().endsWith("/thumela.bff.v1.AuthService/FinishPasskeySignIn"), {
    timeout: 20_000,
  });
  await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Log Out" }).click();
  // Not waitForURL(/login/): the autofill can sign in and leave /login before that wait looks
  // (it failed so in CI). Only the login page starts the autofill, so its answer shows the way.
  assert.equal((await finished).ok(), true, "FinishPasskeySignIn refused the autofill's passkey");
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  assert.match(page.url(), /\/dashboard/);

  // The list shows it was used.
  await openSecurity(page);
  await page.getByRole("list", { name: "Your passkeys" }).getByText(/Last used \d/).waitFor();

  await authenticator.remove();
  await context.close();
});
