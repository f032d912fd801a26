// Referral credit in Debian's Chromium against the real stack: A copies the link from
// /refer-friend; B signs up through it, verifies, gets R50 of credit, sends a free first transfer
// (the credit, which pays fees only, is kept), then a second whose fee the credit pays while the
// card pays the amount (the confirmation's Payment box and the side panel's Transaction Summary
// say so alike); once B's transfer completes, A's /refer-friend shows one friend joined and R100
// earned.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, startStack, uniqueEmail } from "./harness.mjs";
import { PASSWORD, clickSendMoney, codeFromOutbox, fillAmountAndRecipient, sendWithNewCard, signUpVerified, toast } from "./flows.mjs";

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

/** "R1 234,56" (en-ZA, any space) → cents. */
function cents(text) {
  const m = /R([\d\s\u00a0]+),(\d{2})/.exec(text);
  assert.ok(m, `no amount in ${JSON.stringify(text)}`);
  return Number(m[1].replace(/\D/g, "")) * 100 + Number(m[2]);
}

/** The figure under a <dt> in `scope`. */
async function figure(scope, term) {
  return scope.locator("dt", { hasText: term }).locator("xpath=following-sibling::dd[1]").innerText();
}

/**
 * Waits until `check()` resolves true (the credit arrives through the bus). Each page load gets
 * a few seconds to render and fetch before the page is reloaded: a check made the instant a
 * reload returns would see the dashboard before its data, and on a busy machine never anything
 * else.
 */
/** sendWithNewCard's wizard with the card saved by the first send (a card is saved once). */
async function sendWithSavedCard(page, { amount, name, phone = "082 123 4567", bank = "Standard Bank", beforeSend }) {
  await page.goto(`${stack.baseURL}/send-money`); // a fresh wizard, not the last one's result
  await fillAmountAndRecipient(page, { amount, name, phone, bank });
  await page.getByRole("radio", { name: /Personal Visa/ }).check();
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("heading", { name: "Confirm your transfer" }).waitFor();
  await beforeSend(page);
  await clickSendMoney(page);
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 30_000 });
}

async function eventually(page, check, { timeoutMs = 30_000, label = "condition" } = {}) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const reloadAt = Math.min(Date.now() + 5_000, until);
    while (Date.now() < reloadAt) {
      if (await check().catch(() => false)) return;
      await page.waitForTimeout(250);
    }
    if (Date.now() >= until) {
      // The stack's own account of the wait, for whoever reads the failure.
      const relevant = stack.logs.filter((l) => /referr|UserVerified|verif|redeliver|consum|outbox|relay/i.test(l));
      assert.fail(`timed out waiting for ${label}; the stack said:\n${relevant.slice(-80).join("\n")}`);
    }
    await page.reload();
  }
}

test("a referral from sign-up to credit spent", async () => {
  // A: the code and the link come from the server; the link is copied.
  const contextA = await chromium.browser.newContext({ permissions: ["clipboard-read", "clipboard-write"] });
  const a = await signUpVerified(contextA, stack.baseURL, { firstName: "Thandi", prefix: "referrer" });
  await a.page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Refer a Friend" }).click();
  await a.page.getByRole("heading", { name: "Refer a Friend", level: 1 }).waitFor();
  const code = (await a.page.getByTestId("referral-code").innerText()).trim();
  assert.match(code, /^THU-[0-9A-HJKMNP-TV-Z]{8}$/);
  await a.page.getByRole("button", { name: "Copy referral link" }).click();
  await toast(a.page, "Copied referral link!").waitFor();
  const link = await a.page.evaluate(() => navigator.clipboard.readText());
  assert.equal(link, `${stack.baseURL}/signup?ref=${code}`);
  const figures = a.page.getByRole("region", { name: "Your referrals and credit" });
  assert.equal((await figure(figures, "Friends joined")).trim(), "0");

  // B signs up through the link and is told of the R50.
  const contextB = await chromium.browser.newContext();
  const b = await contextB.newPage();
  const emailB = uniqueEmail("friend");
  await b.goto(link);
  await b.getByRole("heading", { name: "Create Your Account" }).waitFor();
  const invitation = await b.getByRole("note", { name: "Invitation" }).innerText();
  assert.match(invitation, new RegExp(`code ${code}`));
  assert.match(invitation, /You get R50,00 transfer credit once you verify your email address\./);
  await b.getByLabel("First name").fill("Lerato");
  await b.getByLabel("Last name").fill("Dube");
  await b.getByLabel("Email").fill(emailB);
  await b.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await b.getByLabel("Confirm password").fill(PASSWORD);
  await b.getByRole("button", { name: "Create Account" }).click();
  await b.getByRole("heading", { name: "Verify Your Identity" }).waitFor();
  await b.getByLabel("Verification code").fill(await codeFromOutbox(stack.baseURL, emailB, "sign_up_code"));
  await b.getByRole("button", { name: "Verify" }).click();
  await b.getByRole("heading", { name: "Quick Actions" }).waitFor();

  // The welcome credit: on the dashboard once transfers has taken UserVerified.
  const credit = b.getByRole("region", { name: "Transfer credit" });
  await eventually(b, async () => (await credit.isVisible()) && /R50,00/.test(await credit.innerText()), { label: "B's R50 credit" });

  // B's first transfer is free: the credit, which pays fees only, is kept, and the page says so.
  await sendWithNewCard(b, {
    amount: "150",
    name: "Sipho Dlamini",
    beforeSend: async (page) => {
      await page.getByText("This transfer has no fee, so your transfer credit (R50,00) is kept for the fees of your next transfers.").waitFor({ timeout: 20_000 });
      const summary = page.getByRole("region", { name: "Transaction Summary" });
      await summary.getByText("First transfer free!").waitFor();
      assert.equal(await summary.locator("dt", { hasText: "Credit applied" }).count(), 0);
    },
  });
  assert.equal(await b.locator("dt", { hasText: "Credit applied" }).count(), 0);

  // A: one friend joined, R100 earned once B's transfer completed.
  await a.page.reload();
  await a.page.getByRole("heading", { name: "Refer a Friend", level: 1 }).waitFor();
  await eventually(
    a.page,
    async () => (await figure(figures, "Friends joined")).trim() === "1" && /R100,00/.test(await figure(figures, "Rewards earned")),
    { label: "A's reward" },
  );
  assert.match(await figure(figures, "Credit left"), /R100,00/);
  await a.page.getByRole("list", { name: "Recent credit" }).getByText("Reward: a friend completed a first transfer").waitFor();

  // B's second transfer has a fee: the credit pays it, and the card pays the R150 the ATM pays
  // out (credit is never cash). The confirmation estimates it; the result says what was done.
  let shown;
  await sendWithSavedCard(b, {
    amount: "150",
    name: "Sipho Dlamini",
    beforeSend: async (page) => {
      const payment = page.getByRole("region", { name: "Payment" });
      await payment.waitFor({ timeout: 20_000 });
      shown = {
        total: cents(await figure(payment, "Total amount")),
        credit: cents((await figure(payment, "Credit applied")).replace("−", "")),
        card: cents(await figure(payment, "Charged to your card")),
      };
      // The side panel's running summary has the same credit line, from the same estimate.
      const summary = page.getByRole("region", { name: "Transaction Summary" });
      assert.deepEqual(
        {
          total: cents(await figure(summary, "Total amount")),
          credit: cents((await figure(summary, "Credit applied")).replace("−", "")),
          card: cents(await figure(summary, "Charged to your card")),
        },
        shown,
      );
    },
  });
  assert.ok(shown.credit > 0 && shown.credit < 5000, `credit applied ${shown.credit}`);
  assert.equal(shown.card, 15000);
  assert.equal(shown.credit + shown.card, shown.total);
  const applied = cents((await b.locator("dt", { hasText: "Credit applied" }).locator("xpath=following-sibling::dd[1]").innerText()).replace("−", ""));
  assert.equal(applied, shown.credit);
  const charged = cents(await b.locator("dt", { hasText: "Charged to your card" }).locator("xpath=following-sibling::dd[1]").innerText());
  assert.equal(charged, 15000);

  // B's credit paid that fee: the rest is left, and the movement says so.
  await b.goto(`${stack.baseURL}/refer-friend`);
  const figuresB = b.getByRole("region", { name: "Your referrals and credit" });
  await figuresB.waitFor();
  assert.equal(cents(await figure(figuresB, "Credit left")), 5000 - shown.credit);
  await b.getByRole("list", { name: "Recent credit" }).getByText("Spent on a transfer").waitFor();

  await contextA.close();
  await contextB.close();
});
