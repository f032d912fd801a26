// Limits from one source, in Debian's Chromium against the real stack. The stack runs with
// limits that are NOT the defaults (TRANSFERS_LIMIT_*_CENTS below), so a figure the web kept a
// copy of would show here as a wrong number: a new sender's dashboard card and the wizard's
// amount step show the full daily and monthly allowance the transfers service has, and the
// amount step refuses more than the per-transfer figure in the server's words; after a
// send the meter moves by the amount (live, in a tab left open on the dashboard) and shows the
// money waiting in the uncollected voucher; the public FAQ and the Help Center state the same
// figures that GetLimitPolicy answers.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, smsFor, startStack } from "./harness.mjs";
import { clickSendMoney, signUpVerified, toast } from "./flows.mjs";

// Uncommon figures, none of them a default (DECISIONS.md: R10, R3 000, R5 000, R24 000, R100 000).
const LIMITS = {
  minimum: 2_000n, // R20
  perTransfer: 250_000n, // R2 500
  perDay: 437_000n, // R4 370
  perMonth: 1_359_000n, // R13 590
  perYear: 7_777_000n, // R77 770
};

let stack;
let chromium;

before(async () => {
  stack = await startStack({
    env: {
      TRANSFERS_LIMIT_MINIMUM_CENTS: String(LIMITS.minimum),
      TRANSFERS_LIMIT_PER_TRANSFER_CENTS: String(LIMITS.perTransfer),
      TRANSFERS_LIMIT_DAILY_CENTS: String(LIMITS.perDay),
      TRANSFERS_LIMIT_MONTHLY_CENTS: String(LIMITS.perMonth),
      TRANSFERS_LIMIT_YEARLY_CENTS: String(LIMITS.perYear),
    },
  });
  chromium = await launchBrowser();
});

after(async () => {
  await chromium?.close();
  await stack?.stop();
});

const NEXT_YEAR = String(new Date().getFullYear() + 1);

/** The web's money format (src/lib/money.ts formatMoney): "R1 250,00" for 125000 cents. */
const randFormat = new Intl.NumberFormat("en-ZA", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
function money(cents) {
  return `R${randFormat.format(`${cents / 100n}.${String(cents % 100n).padStart(2, "0")}`)}`;
}

/**
 * en-ZA groups with a no-break space, and Node's ICU and Chromium's may differ on which one
 * (U+00A0, U+202F) or use a plain space: compare texts, the page's AND the expected ones, with
 * every run of Unicode spaces made one plain space.
 */
function plain(text) {
  return (text ?? "").replace(/[\s\p{Zs}]+/gu, " ").trim();
}

/** The meter's sentence (limits-meter.tsx allowanceText). */
function allowance(dayLeft, monthLeft) {
  return `${money(dayLeft)} of ${money(LIMITS.perDay)} left today · ${money(monthLeft)} this month`;
}

/** Waits until the locator's text, spaces normalised, is `expected` (or matches it). */
async function waitForText(locator, expected, timeoutMs = 20_000) {
  await locator.waitFor({ timeout: timeoutMs });
  const deadline = Date.now() + timeoutMs;
  let seen;
  for (;;) {
    seen = plain(await locator.textContent());
    if (expected instanceof RegExp ? expected.test(seen) : seen === plain(expected)) return seen;
    if (Date.now() > deadline) assert.fail(`expected ${expected}, the page shows "${seen}"`);
    await locator.page().waitForTimeout(100); // polling a state, not a fixed wait
  }
}

/** Adds a card through the add-card dialog opened from the wizard. */
async function addCardInDialog(page, { name, number }) {
  const dialog = page.getByRole("dialog", { name: "Add Payment Method" });
  await dialog.getByLabel("Card Name").fill(name);
  await dialog.getByLabel("Card Number").pressSequentially(number);
  await dialog.getByRole("combobox", { name: "Expiry month" }).selectOption("08");
  await dialog.getByRole("combobox", { name: "Expiry year" }).selectOption(NEXT_YEAR);
  await dialog.getByLabel("CVV").fill("123");
  await dialog.getByRole("button", { name: "Add Payment Method" }).click();
  await toast(page, "Card added successfully").waitFor();
  await dialog.waitFor({ state: "detached" });
}

/** The FAQ answer that states every limit (faq.ts howMuch). */
function howMuchSentence() {
  return (
    `You can send from ${money(LIMITS.minimum)} up to ${money(LIMITS.perTransfer)} per transfer, ` +
    `with at most ${money(LIMITS.perDay)} per day, ${money(LIMITS.perMonth)} per calendar month ` +
    `and ${money(LIMITS.perYear)} per calendar year`
  );
}

/** Opens "How much can I send?" and checks the answer states the configured figures. */
async function checkHowMuchAnswer(page) {
  await page.getByRole("button", { name: "How much can I send?" }).first().click();
  const answer = page.getByRole("region", { name: "How much can I send?" });
  // Every figure filled in from the policy (no loading placeholder, no "the current limit").
  await answer.locator("[data-limit='perYear']").waitFor();
  assert.equal(await answer.locator("[data-limit-loading]").count(), 0);
  const text = plain(await answer.textContent());
  assert.ok(text.includes(plain(howMuchSentence())), `the answer reads: ${text}`);
  assert.ok(!text.includes("the current limit"), text);
}

test("a new sender sees the configured allowance on the dashboard and in the wizard; a send moves the meter and shows the uncollected voucher", async () => {
  const context = await chromium.browser.newContext();
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "limits" });

  // The dashboard's card: the whole day and month, nothing used, nothing waiting.
  const card = page.getByRole("region", { name: "Your limits" });
  await waitForText(card.getByTestId("limits-allowance"), allowance(LIMITS.perDay, LIMITS.perMonth));
  assert.equal(await card.getByRole("meter", { name: "Used of today's limit" }).getAttribute("aria-valuenow"), "0");
  assert.equal(await card.getByTestId("limits-uncollected").count(), 0);

  // A second tab left on the dashboard: the live stream must move its meter without a reload.
  const watcher = await context.newPage();
  await watcher.goto(`${stack.baseURL}/dashboard`);
  const watched = watcher.getByRole("region", { name: "Your limits" }).getByTestId("limits-allowance");
  await waitForText(watched, allowance(LIMITS.perDay, LIMITS.perMonth));

  // The wizard's amount step: the same meter, and the server's per-transfer figure when the
  // typed amount is above it.
  await page.getByRole("region", { name: "New Transaction" }).getByRole("link", { name: "Send Money" }).click();
  await page.getByRole("heading", { name: "Send Money", level: 1 }).waitFor();
  await waitForText(page.getByTestId("limits-allowance"), allowance(LIMITS.perDay, LIMITS.perMonth));
  const amount = page.getByLabel("Amount to Send (ZAR)");
  await amount.fill(String((LIMITS.perTransfer + 10_000n) / 100n));
  await waitForText(
    page.getByTestId("limits-meter").getByRole("status"),
    `You can send up to ${money(LIMITS.perTransfer)} in one transfer now.`,
  );
  // Next refuses it on this step, in the transfers service's words and figures, before a
  // recipient is typed or "Confirm it's you" is asked.
  await page.getByRole("button", { name: "Next" }).click();
  await toast(page, "Invalid amount").waitFor();
  await waitForText(
    page.locator("#send-amount-error"),
    `This transfer exceeds the limit of ${money(LIMITS.perTransfer)} per transfer. You can send up to ${money(LIMITS.perTransfer)} in one transfer.`,
  );
  assert.equal(await amount.getAttribute("aria-invalid"), "true");

  // Send R250 (first transfer: free; step-up and the first-payment question by flows.mjs).
  const sent = 25_000n;
  await amount.fill(String(sent / 100n));
  await page.getByTestId("limits-meter").getByRole("status").waitFor({ state: "detached" });
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Recipient Name").fill("Lindiwe Mthembu");
  await page.getByLabel("Recipient Phone Number").fill("082 437 1359");
  await page.getByRole("combobox", { name: "Bank" }).selectOption({ label: "Standard Bank" });
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("heading", { name: "No Payment Methods" }).waitFor();
  await page.getByRole("button", { name: "Add Payment Method" }).click();
  await addCardInDialog(page, { name: "Limits Visa", number: "4242424242424242" });
  await page.getByRole("button", { name: "Next" }).click();
  await clickSendMoney(page);
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 20_000 });
  await smsFor(stack.baseURL, "082 437 1359", /Voucher number/);

  const afterSend = allowance(LIMITS.perDay - sent, LIMITS.perMonth - sent);
  const waiting = `${money(sent)} waiting in 1 uncollected voucher`;

  // The tab nobody touched moved by the amount.
  await waitForText(watched, afterSend);
  await waitForText(watcher.getByRole("region", { name: "Your limits" }).getByTestId("limits-uncollected"), waiting);

  // The sender's dashboard, and the wizard's amount step for the next transfer.
  await page.getByRole("link", { name: "Back to Dashboard" }).click();
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  await waitForText(card.getByTestId("limits-allowance"), afterSend);
  await waitForText(card.getByTestId("limits-uncollected"), waiting);
  const used = Number(((sent * 100n) / LIMITS.perDay).toString());
  assert.equal(await card.getByRole("meter", { name: "Used of today's limit" }).getAttribute("aria-valuenow"), String(used));

  await page.getByRole("region", { name: "New Transaction" }).getByRole("link", { name: "Send Money" }).click();
  await page.getByRole("heading", { name: "Send Money", level: 1 }).waitFor();
  await waitForText(page.getByTestId("limits-allowance"), afterSend);
  await waitForText(page.getByTestId("limits-uncollected"), waiting);
  await context.close();
});

test("the public FAQ and the Help Center state the figures GetLimitPolicy answers", async () => {
  const context = await chromium.browser.newContext();
  const page = await context.newPage();

  // What the server says, asked in Connect's JSON (the page itself speaks binary protobuf):
  // exactly the configured figures.
  await page.goto(`${stack.baseURL}/faq`);
  await page.getByRole("heading", { level: 1, name: "FAQ" }).waitFor();
  await checkHowMuchAnswer(page);
  const policyResponse = await page.request.post(`${stack.baseURL}/thumela.bff.v1.TransfersService/GetLimitPolicy`, {
    headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1" },
    data: {},
  });
  assert.ok(policyResponse.ok(), `GetLimitPolicy: ${policyResponse.status()}`);
  const policy = await policyResponse.json();
  const byKind = Object.fromEntries((policy.limits ?? []).map((l) => [l.kind, BigInt(l.limitCents ?? "0")]));
  assert.deepEqual(byKind, {
    LIMIT_KIND_MINIMUM: LIMITS.minimum,
    LIMIT_KIND_PER_TRANSFER: LIMITS.perTransfer,
    LIMIT_KIND_DAILY: LIMITS.perDay,
    LIMIT_KIND_MONTHLY: LIMITS.perMonth,
    LIMIT_KIND_YEARLY: LIMITS.perYear,
  });
  // The FAQ's "why" part names the same minimum.
  const answer = plain(await page.getByRole("region", { name: "How much can I send?" }).textContent());
  assert.ok(answer.includes(plain(`Each transfer must be at least ${money(LIMITS.minimum)}.`)), answer);

  // The Help Center (signed in) says the same.
  const { page: signedIn } = await signUpVerified(context, stack.baseURL, { prefix: "limits-help" });
  await signedIn.goto(`${stack.baseURL}/help`);
  await signedIn.getByRole("heading", { level: 1, name: "Help Center" }).waitFor();
  await checkHowMuchAnswer(signedIn);
  await context.close();
});
