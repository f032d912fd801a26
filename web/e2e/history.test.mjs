// Transaction history, the dashboard's Resend / Send Similar prefill and a card declined on
// charge, in Debian's Chromium against the real stack. The history's transfers are created
// through the BFF's Connect JSON API from the signed-in page (same origin, so the session
// cookie goes along) and charged by the sandbox processor's worker (about 1 s each).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, startStack } from "./harness.mjs";
import { clickSendMoney, signUpVerified, toast } from "./flows.mjs";

let stack;
let chromium;
/** The history user: their context, dashboard page and transfers (oldest first). */
let history;

const NEXT_YEAR = String(new Date().getFullYear() + 1);

const RECIPIENTS = [
  { name: "Alice Mokoena", phone: "+27821010001" },
  { name: "Bongani Zulu", phone: "+27832020002" },
  { name: "Chantal Naidoo", phone: "+27843030003" },
  { name: "Dumisani Khumalo", phone: "+27724040004" },
  { name: "Elsie van Wyk", phone: "+27735050005" },
  { name: "Farai Moyo", phone: "+27746060006" },
  { name: "Gugu Mthembu", phone: "+27767070007" },
];

/** Calls a BFF method with the Connect protocol's JSON encoding from the page (its cookie). */
async function rpc(page, service, method, body) {
  const { status, text } = await page.evaluate(
    async ({ path, body }) => {
      const res = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1" },
        body: JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    },
    { path: `/thumela.bff.v1.${service}/${method}`, body },
  );
  assert.equal(status, 200, `${service}/${method} answered ${status}: ${text}`);
  return JSON.parse(text);
}

/** Polls `read` until it returns a truthy value. */
async function eventually(read, what, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await read();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The history table's rows, by their details buttons (one per row). */
function detailButtons(page) {
  return page.getByRole("button", { name: /^View details of the transfer to / });
}

/** The recipient names in the table's rows, top to bottom. */
async function rowNames(page) {
  const labels = await detailButtons(page).evaluateAll((buttons) => buttons.map((b) => b.getAttribute("aria-label")));
  return labels.map((l) => l.replace("View details of the transfer to ", ""));
}

/** Waits until the table shows exactly these recipients (the search is debounced, server-side). */
async function expectRows(page, names) {
  try {
    await eventually(async () => JSON.stringify(await rowNames(page)) === JSON.stringify(names), `rows ${names}`, 10_000);
  } catch {
    assert.deepEqual(await rowNames(page), names);
  }
}

/** Checks the wizard was opened prefilled with a transfer's amount, recipient and phone. */
async function expectPrefilledWizard(page, { amount, name, phone }) {
  await page.waitForURL(/\/send-money\?/);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get("recipient"), name);
  assert.equal(url.searchParams.get("phone"), phone);
  await page.getByRole("heading", { name: "Send Money", level: 1 }).waitFor();
  assert.equal(Number(await page.getByLabel("Amount to Send (ZAR)").inputValue()), amount);
  await page.getByRole("button", { name: "Next" }).click();
  assert.equal(await page.getByLabel("Recipient Name").inputValue(), name);
  const typed = await page.getByLabel("Recipient Phone Number").inputValue();
  assert.equal(typed.replace(/\D/g, "").slice(-9), phone.replace(/\D/g, "").slice(-9), `phone prefilled as ${typed}`);
}

before(async () => {
  stack = await startStack();
  chromium = await launchBrowser();

  // One user, one saved card, seven R10.00 transfers to distinct recipients.
  const context = await chromium.browser.newContext();
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.baseURL });
  const { page, password } = await signUpVerified(context, stack.baseURL, { prefix: "history" });
  const { paymentMethod } = await rpc(page, "PaymentMethodsService", "AddCard", {
    name: "Personal Visa",
    cardNumber: "4242424242424242",
    expiryMonth: 8,
    expiryYear: Number(NEXT_YEAR),
    cvv: "123",
    isDefault: true,
  });
  assert.ok(paymentMethod?.id, "AddCard answered no payment method");
  // The recipients are new to this sender: confirm it's them first, as the wizard's "Confirm
  // it's you" does (the step-up counts for 5 minutes).
  await rpc(page, "SecurityService", "FinishStepUp", { password });
  const transfers = [];
  for (const r of RECIPIENTS) {
    const { transfer } = await rpc(page, "TransfersService", "CreateTransfer", {
      idempotencyKey: crypto.randomUUID(),
      recipientName: r.name,
      recipientPhone: r.phone,
      bank: "BANK_ABSA",
      amountCents: "1000",
      paymentMethodId: paymentMethod.id,
      // A first payment to a phone: the sender confirms they know the recipient, as the
      // wizard's "Yes, I know ... personally" does (scam-friction.test.mjs).
      recipientKnownConfirmed: true,
    });
    assert.ok(transfer?.id, `no transfer answered for ${r.name}`);
    transfers.push({ ...r, id: transfer.id, phone: transfer.recipientPhone });
  }
  // The sandbox charges them one by one (about a second each).
  await eventually(async () => {
    const res = await rpc(page, "TransfersService", "ListTransfers", {
      status: "TRANSFER_STATUS_COMPLETED",
      page: 1,
      pageSize: 5,
    });
    return res.totalCount === RECIPIENTS.length;
  }, "all seven transfers to complete", 60_000);
  history = { context, page, transfers };
});

after(async () => {
  await history?.context.close();
  await chromium?.close();
  await stack?.stop();
});

test("history: pages of 5, case-insensitive name search, phone search, status filter", async () => {
  const { page } = history;
  await page.goto(`${stack.baseURL}/transactions`);
  await page.getByRole("heading", { name: "Transaction History", level: 1 }).waitFor();
  const pagination = page.getByRole("navigation", { name: "Pagination" });

  // Newest first: page 1 holds the five newest, page 2 the two oldest.
  await pagination.getByText("Showing 1 to 5 of 7 entries").waitFor();
  await expectRows(page, ["Gugu Mthembu", "Farai Moyo", "Elsie van Wyk", "Dumisani Khumalo", "Chantal Naidoo"]);
  assert.equal(await pagination.getByRole("button", { name: "Previous page" }).isDisabled(), true);
  await pagination.getByRole("button", { name: "Next page" }).click();
  await pagination.getByText("Showing 6 to 7 of 7 entries").waitFor();
  await expectRows(page, ["Bongani Zulu", "Alice Mokoena"]);
  assert.equal(await pagination.getByRole("button", { name: "Next page" }).isDisabled(), true);
  assert.equal(await pagination.getByRole("button", { name: "Page 2" }).getAttribute("aria-current"), "page");
  const row = await page.getByRole("row", { name: /Alice Mokoena/ }).innerText();
  assert.match(row, /\+27 82 101 0001/);
  assert.match(row, /R10,00/);
  assert.match(row, /Personal Visa \(•••• 4242\)/);
  assert.match(row, /Completed/);

  // A name substring in another case; the search starts again at page 1 and hides the pager.
  const search = page.getByRole("searchbox", { name: "Search transactions" });
  await search.fill("mOKOe");
  await expectRows(page, ["Alice Mokoena"]);
  assert.equal(await pagination.count(), 0, "pagination shown for a single result");
  await search.fill("ZULU");
  await expectRows(page, ["Bongani Zulu"]);

  // A substring of a phone number, as people write it.
  await search.fill("404 0004");
  await expectRows(page, ["Dumisani Khumalo"]);
  await search.fill("7070007");
  await expectRows(page, ["Gugu Mthembu"]);
  await search.fill("no such recipient");
  await page.getByText("No transactions found").waitFor();
  assert.equal(await pagination.count(), 0);

  // The status filter, on a fresh page (see the next test for clearing the search).
  await page.reload();
  await pagination.getByText("Showing 1 to 5 of 7 entries").waitFor();
  const status = page.getByRole("combobox", { name: "Filter by status" });
  await status.selectOption({ label: "Completed" });
  await pagination.getByText("Showing 1 to 5 of 7 entries").waitFor();
  const statuses = await page.getByRole("row").filter({ has: detailButtons(page) }).allInnerTexts();
  assert.equal(statuses.length, 5);
  for (const text of statuses) assert.match(text, /Completed/);
  await status.selectOption({ label: "Failed" });
  await page.getByText("No transactions found").waitFor();
  assert.equal(await detailButtons(page).count(), 0);
  assert.equal(await pagination.count(), 0);
  await status.selectOption({ label: "Pending" });
  await page.getByText("No transactions found").waitFor();

  // The filter and the search combine, and ≤ 5 results hide the pager.
  await status.selectOption({ label: "Completed" });
  await search.fill("mo");
  // "mo" is only in Mokoena and Moyo.
  await expectRows(page, ["Farai Moyo", "Alice Mokoena"]);
  assert.equal(await pagination.count(), 0);
});

test(
  "history: clearing the search starts again at page 1",
  async () => {
    const { page } = history;
    await page.goto(`${stack.baseURL}/transactions`);
    const pagination = page.getByRole("navigation", { name: "Pagination" });
    await pagination.getByText("Showing 1 to 5 of 7 entries").waitFor();
    await pagination.getByRole("button", { name: "Next page" }).click();
    await pagination.getByText("Showing 6 to 7 of 7 entries").waitFor();
    const search = page.getByRole("searchbox", { name: "Search transactions" });
    await search.fill("zulu");
    await expectRows(page, ["Bongani Zulu"]);
    await search.fill("");
    await expectRows(page, ["Gugu Mthembu", "Farai Moyo", "Elsie van Wyk", "Dumisani Khumalo", "Chantal Naidoo"]);
    await pagination.getByText("Showing 1 to 5 of 7 entries").waitFor({ timeout: 5_000 });
  },
);

/** The page's sideways overflow in px (0: nothing reaches past the window's right edge). */
function sidewaysOverflow(page) {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/** Asserts that the element's box lies inside the window's width. */
async function assertInsideWindow(page, locator, what) {
  const box = await locator.boundingBox();
  const width = page.viewportSize().width;
  assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${what} is outside the ${width} px window: ${JSON.stringify(box)}`);
}

test("a 768 px tablet (sidebar shown) and a 320 px phone: the history and the wizard never scroll sideways", async () => {
  const page = await history.context.newPage();
  try {
    for (const width of [768, 320]) {
      await page.setViewportSize({ width, height: 1024 });
      await page.goto(`${stack.baseURL}/transactions`);
      await page.getByRole("heading", { name: "Transaction History", level: 1 }).waitFor();
      const details = detailButtons(page);
      await details.first().waitFor();
      assert.equal(await sidewaysOverflow(page), 0, `/transactions at ${width} px`);
      // The status and the details button of a row stay on the screen.
      const row = page.getByRole("row").filter({ has: details }).first();
      await assertInsideWindow(page, row.getByText("Completed"), `the status at ${width} px`);
      await assertInsideWindow(page, details.first(), `the details button at ${width} px`);

      await page.goto(`${stack.baseURL}/send-money?amount=10&recipient=Alice%20Mokoena&phone=0821010001`);
      await page.getByRole("heading", { name: "Send Money", level: 1 }).waitFor();
      assert.equal(await sidewaysOverflow(page), 0, `the amount step at ${width} px`);
      await assertInsideWindow(page, page.getByRole("button", { name: "Next" }), `the amount step's Next at ${width} px`);
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByRole("combobox", { name: "Bank" }).selectOption({ label: "ABSA" });
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByRole("radio", { name: "Personal Visa (•••• 4242)" }).waitFor();
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByRole("heading", { name: "Confirm your transfer" }).waitFor();
      // The step shows the total itself, above Send Money (the summary is below it here).
      const payment = page.getByRole("region", { name: "Payment" });
      await payment.getByText("Total amount").waitFor();
      const send = page.getByRole("button", { name: "Send Money" });
      assert.ok((await payment.boundingBox()).y < (await send.boundingBox()).y, "the total is below Send Money");
      assert.equal(await sidewaysOverflow(page), 0, `the confirmation step at ${width} px`);
      await assertInsideWindow(page, send, `Send Money at ${width} px`);
      await assertInsideWindow(page, page.getByRole("list", { name: "Send money steps" }), `the step indicator at ${width} px`);
    }
  } finally {
    await page.close();
  }
});

test("Resend and Send Similar open the wizard prefilled; a recent row opens the Transaction Details", async () => {
  const { page, transfers } = history;
  const newest = transfers[transfers.length - 1];
  const second = transfers[transfers.length - 2];

  await page.goto(`${stack.baseURL}/dashboard`);
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  await page.getByRole("link", { name: `Resend R10,00 to ${newest.name}` }).click();
  await expectPrefilledWizard(page, { amount: 10, name: newest.name, phone: newest.phone });

  await page.goto(`${stack.baseURL}/dashboard`);
  const recent = page.getByRole("region", { name: "Recent Transactions" });
  await recent.getByRole("button", { name: newest.name }).waitFor();
  assert.equal(await recent.getByRole("button", { name: /Mthembu|Moyo|van Wyk|Khumalo|Naidoo|Zulu|Mokoena/ }).count(), 3);
  const row = recent.getByRole("button", { name: second.name });
  await row.getByRole("img", { name: "Completed" }).waitFor();
  await row.click();

  const dialog = page.getByRole("dialog", { name: "Transaction Details" });
  await dialog.waitFor();
  const reference = second.id.slice(0, 8);
  await dialog.getByText(reference, { exact: true }).waitFor();
  const text = await dialog.innerText();
  assert.match(text, new RegExp(second.name));
  assert.match(text, /Amount\s*R10,00/);
  assert.match(text, /COMPLETED/);
  assert.match(text, /Personal Visa \(•••• 4242\)/);
  await dialog.getByRole("button", { name: "Copy reference number" }).click();
  await toast(page, "Reference number copied to clipboard").waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), reference);

  await dialog.getByRole("link", { name: "Send Similar" }).click();
  await dialog.waitFor({ state: "detached" });
  await expectPrefilledWizard(page, { amount: 10, name: second.name, phone: second.phone });
});

test(
  "a card saved with 4000 0000 0000 0002 is declined on charge: the transfer ends in 'Transfer Failed'",
  async () => {
    const context = await chromium.browser.newContext();
    try {
      const { page } = await signUpVerified(context, stack.baseURL, { prefix: "declined0002" });
      await page.goto(`${stack.baseURL}/payment-methods`);
      await page.getByRole("heading", { name: "Payment Methods", level: 1 }).waitFor();
      await page.getByRole("heading", { name: "No Payment Methods" }).waitFor();
      await page.getByRole("button", { name: "Add Payment Method" }).click();
      const dialog = page.getByRole("dialog", { name: "Add Payment Method" });
      await dialog.getByLabel("Card Name").fill("Declined Visa");
      await dialog.getByLabel("Card Number").pressSequentially("4000000000000002");
      await dialog.getByRole("combobox", { name: "Expiry month" }).selectOption("08");
      await dialog.getByRole("combobox", { name: "Expiry year" }).selectOption(NEXT_YEAR);
      await dialog.getByLabel("CVV").fill("123");
      await dialog.getByRole("button", { name: "Add Payment Method" }).click();
      // Saved, or refused at once (a sonner error toast): fail fast with its text.
      const outcome = await Promise.race([
        toast(page, "Payment method added").waitFor().then(() => "saved"),
        page
          .locator("[data-sonner-toast][data-type='error']")
          .first()
          .waitFor()
          .then(() => page.locator("[data-sonner-toast][data-type='error']").first().innerText()),
      ]);
      assert.equal(outcome, "saved", `the card was refused at save time: ${outcome}`);
      await dialog.waitFor({ state: "detached" });
      await page.getByRole("region", { name: "Declined Visa" }).waitFor();

      await page.goto(`${stack.baseURL}/send-money?amount=10&recipient=Lerato%20Molefe&phone=0825550111`);
      await page.getByRole("heading", { name: "Send Money", level: 1 }).waitFor();
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByRole("combobox", { name: "Bank" }).selectOption({ label: "FNB" });
      await page.getByRole("button", { name: "Next" }).click();
      const radio = page.getByRole("radio", { name: "Declined Visa (•••• 0002)" });
      await radio.waitFor();
      assert.equal(await radio.isChecked(), true);
      await page.getByRole("button", { name: "Next" }).click();
      await clickSendMoney(page);
      await page.getByRole("heading", { name: "Transfer Failed" }).waitFor({ timeout: 20_000 });
      // "Transfer initiated … being processed" does not stay beside the failure (F10).
      await toast(page, "Transfer initiated").waitFor({ state: "detached", timeout: 5_000 });
    } finally {
      await context.close();
    }
  },
);
