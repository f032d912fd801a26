// Saved recipients in Debian's Chromium against the real stack: a completed transfer saves its
// recipient; /recipients lists, edits and deletes them; the wizard offers them first.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, startStack } from "./harness.mjs";
import { clickSendMoney, signUpVerified, toast } from "./flows.mjs";

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

function nav(page, name) {
  return page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name, exact: true });
}

test("a paid recipient is saved, edited on /recipients, picked in the wizard, then deleted", async () => {
  const context = await chromium.browser.newContext();
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "recipients" });

  // Before any transfer: the page says how recipients get there.
  await nav(page, "Recipients").click();
  await page.getByRole("heading", { name: "Recipients", level: 1 }).waitFor();
  await page.getByText("No saved recipients yet. People you send money to are saved here.").waitFor();

  // Send R150 to Sipho; 'Save Sipho Dlamini for next time' is ticked by default.
  await nav(page, "Send Money").click();
  await page.getByRole("heading", { name: "Send Money", level: 1 }).waitFor();
  await page.getByLabel("Amount to Send (ZAR)").fill("150");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Recipient Name").fill("Sipho Dlamini");
  await page.getByLabel("Recipient Phone Number").fill("082 123 4567");
  await page.getByRole("combobox", { name: "Bank" }).selectOption({ label: "Standard Bank" });
  assert.equal(await page.getByRole("checkbox", { name: "Save Sipho Dlamini for next time" }).isChecked(), true);
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("button", { name: "Add Payment Method" }).click();
  const addCard = page.getByRole("dialog", { name: "Add Payment Method" });
  await addCard.getByLabel("Card Name").fill("Personal Visa");
  await addCard.getByLabel("Card Number").pressSequentially("4242424242424242");
  await addCard.getByRole("combobox", { name: "Expiry month" }).selectOption("08");
  await addCard.getByRole("combobox", { name: "Expiry year" }).selectOption(NEXT_YEAR);
  await addCard.getByLabel("CVV").fill("123");
  await addCard.getByRole("button", { name: "Add Payment Method" }).click();
  await addCard.waitFor({ state: "detached" });
  await page.getByRole("button", { name: "Next" }).click();
  await clickSendMoney(page);
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 20_000 });

  // Saved on completion, with the phone and bank it was paid at.
  await nav(page, "Recipients").click();
  const sipho = page.getByRole("region", { name: "Sipho Dlamini" });
  await sipho.waitFor();
  const text = await sipho.innerText();
  assert.match(text, /\+27 82 123 4567/);
  assert.match(text, /Standard Bank · Last paid Today/);

  // Edit: a new name and bank.
  await page.getByRole("button", { name: "Edit Sipho Dlamini" }).click();
  const edit = page.getByRole("dialog", { name: "Edit Recipient" });
  await edit.getByLabel("Name").fill("Sipho Khumalo");
  await edit.getByRole("combobox", { name: "Bank" }).selectOption({ label: "Capitec" });
  await edit.getByRole("button", { name: "Save Changes" }).click();
  await toast(page, "Recipient updated").waitFor();
  await edit.waitFor({ state: "detached" });
  await page.getByRole("region", { name: "Sipho Khumalo" }).getByText("Capitec", { exact: false }).waitFor();

  // The wizard offers the saved recipient first; picking them fills name, phone and bank.
  await nav(page, "Send Money").click();
  await page.getByLabel("Amount to Send (ZAR)").fill("100");
  await page.getByRole("button", { name: "Next" }).click();
  const saved = page.getByRole("list", { name: "Saved recipients" });
  await saved.getByRole("button", { name: /Sipho Khumalo/ }).click();
  assert.equal(await page.getByLabel("Recipient Name").inputValue(), "Sipho Khumalo");
  assert.equal(await page.getByLabel("Recipient Phone Number").inputValue(), "+27 82 123 4567");
  const bank = page.getByRole("combobox", { name: "Bank" });
  assert.equal(await bank.locator("option:checked").innerText(), "Capitec");
  assert.equal(await page.getByRole("checkbox", { name: "Save Sipho Khumalo for next time" }).isChecked(), true);

  // Delete, after a confirmation.
  await nav(page, "Recipients").click();
  await page.getByRole("button", { name: "Delete Sipho Khumalo" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Delete Recipient" });
  await confirm.getByRole("button", { name: "Delete" }).click();
  await toast(page, "Recipient deleted").waitFor();
  await page.getByText("No saved recipients yet. People you send money to are saved here.").waitFor();
  await context.close();
});
