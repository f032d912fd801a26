// Recurring sends in Debian's Chromium against the real stack, its scheduler ticking every
// second: a weekly schedule made on /recipients from a saved recipient, starting today, runs
// its first occurrence at once (an ordinary transfer in the history, and on the schedule), then
// is paused, resumed and deleted. Its dialog refuses an amount above the per-transfer limit
// before anything is sent.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, startStack } from "./harness.mjs";
import { PASSWORD, sendWithNewCard, signUpVerified, toast } from "./flows.mjs";

let stack;
let chromium;

before(async () => {
  stack = await startStack({ env: { TRANSFERS_SCHEDULER_INTERVAL: "1s" } });
  chromium = await launchBrowser();
});

after(async () => {
  await chromium?.close();
  await stack?.stop();
});

function nav(page, name) {
  return page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name, exact: true });
}

/** Today, a week and a month from today in Johannesburg, as the schedule's card words them. */
function saDays() {
  const iso = new Intl.DateTimeFormat("en-CA", { timeZone: "Africa/Johannesburg", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
  const [y, m, d] = iso.split("-").map(Number);
  const words = (date) => {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat("en-ZA", { weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC" })
        .formatToParts(date)
        .map((p) => [p.type, p.value]),
    );
    return `${parts.weekday} ${Number(parts.day)} ${parts.month} ${parts.year}`;
  };
  // A month on: the same day of the month, clamped to the month's last day.
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return {
    today: words(new Date(Date.UTC(y, m - 1, d))),
    nextWeek: words(new Date(Date.UTC(y, m - 1, d + 7))),
    nextMonth: words(new Date(Date.UTC(y, m, Math.min(d, last)))),
  };
}

test("a weekly schedule whose first occurrence runs", async () => {
  const context = await chromium.browser.newContext();
  const { page } = await signUpVerified(context, stack.baseURL, { prefix: "schedules" });

  // A first, completed transfer saves Sipho as a recipient; 'Repeat this send' (monthly) on
  // its confirmation step schedules the next ones from a month from today.
  await sendWithNewCard(page, {
    amount: "150",
    name: "Sipho Dlamini",
    beforeSend: async (p) => {
      await p.getByRole("checkbox", { name: "Repeat this send" }).check();
      await p.getByRole("radio", { name: "Monthly" }).check();
    },
  });
  await toast(page, "Repeat set up").waitFor({ timeout: 20_000 });

  await nav(page, "Recipients").click();
  await page.getByRole("heading", { name: "Recipients", level: 1 }).waitFor();
  const scheduled = page.getByRole("region", { name: "Scheduled sends" });
  const monthly = page.getByRole("region", { name: "R150,00 to Sipho Dlamini, monthly" });
  await monthly.waitFor();
  assert.match(await monthly.innerText(), /Active/);
  assert.match(await monthly.innerText(), new RegExp(saDays().nextMonth));
  assert.match(await monthly.innerText(), /None yet\./);

  // The dialog reads the limit policy (GetLimitPolicy) when it opens; nothing read it before
  // in this tab, so its answer is awaited before the form is used.
  const policyRead = page.waitForResponse((response) => response.url().includes("/thumela.bff.v1.TransfersService/GetLimitPolicy"));
  await page.getByRole("button", { name: "Schedule a send to Sipho Dlamini" }).click();
  const dialog = page.getByRole("dialog", { name: "Schedule a send" });
  await dialog.waitFor();
  await policyRead;

  // Above the per-transfer limit (R3,000.00): refused on the form, in the server's words
  // (its LimitError), before "Confirm it's you" is asked and without a CreateSchedule call.
  const createCalls = [];
  const countCreates = (request) => {
    if (request.url().includes("/thumela.bff.v1.SchedulesService/CreateSchedule")) createCalls.push(request.url());
  };
  page.on("request", countCreates);
  await dialog.getByLabel("Amount (ZAR)").fill("3010");
  await dialog.getByRole("button", { name: "Schedule send" }).click();
  await dialog
    .getByText(/^This transfer exceeds the limit of R3\s000,00 per transfer\. You can send up to R3\s000,00 in one transfer\.$/)
    .waitFor();
  assert.equal(await dialog.getByLabel("Amount (ZAR)").getAttribute("aria-invalid"), "true");
  await page.waitForTimeout(500); // a request, had one been made, would have left by now
  assert.equal(await page.getByRole("dialog", { name: "Confirm it's you" }).count(), 0);
  assert.deepEqual(createCalls, []);
  page.off("request", countCreates);

  // Schedule R200 weekly, first send today, on the saved card.
  await dialog.getByLabel("Amount (ZAR)").fill("200");
  assert.equal(await dialog.getByRole("radio", { name: "Weekly" }).isChecked(), true);
  // What each send charges is on screen before the sender can schedule: the fee quoted for
  // R200 at the recipient's bank, and the total per send.
  const charge = dialog.getByRole("region", { name: "Each send charges" });
  await charge.getByText(/^R\d[\d\s]*,\d\d is charged to your card every week\./).waitFor();
  assert.match(await charge.innerText(), /Send amount\s+R200,00/);
  const perSend = /Total per send\s+(R[\d\s]+,\d\d)/.exec(await charge.innerText())[1];
  const days = saDays();
  await dialog.getByRole("button", { name: "Schedule send" }).click();
  // Should the server want a fresh step-up, confirm as the sender would.
  const stepUp = page.getByRole("dialog", { name: "Confirm it's you" });
  await stepUp.or(toast(page, "Scheduled send created")).first().waitFor({ timeout: 20_000 });
  if (await stepUp.isVisible()) {
    await stepUp.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await stepUp.getByRole("button", { name: "Confirm and schedule" }).click();
  }
  await toast(page, "Scheduled send created").waitFor({ timeout: 20_000 });
  await dialog.waitFor({ state: "detached" });

  // The scheduler runs today's occurrence within seconds; schedules_changed shows it here.
  const card = page.getByRole("region", { name: "R200,00 to Sipho Dlamini, weekly" });
  await card.waitFor();
  await card.getByText(/Sent, reference [0-9a-f]{8}/).waitFor({ timeout: 30_000 });
  const reference = /Sent, reference ([0-9a-f]{8})/.exec(await card.innerText())[1];
  assert.match(await card.innerText(), new RegExp(`${days.today} · Sent`));
  await card.getByText(days.nextWeek).waitFor({ timeout: 10_000 });
  assert.match(await card.innerText(), /Active/);
  // The card says what each send charges: the total the dialog showed before scheduling.
  const cardTotal = /Total per send\s+(R[\d\s]+,\d\d)/.exec(await card.innerText());
  assert.ok(cardTotal, `no total per send on the card: ${await card.innerText()}`);
  assert.equal(cardTotal[1].replace(/\s/g, " "), perSend.replace(/\s/g, " "));

  // The occurrence is an ordinary transfer in the history, made once.
  await nav(page, "Transaction History").click();
  await page.getByRole("heading", { name: "Transaction History", level: 1 }).waitFor();
  const rows = page.getByRole("row", { name: /Sipho Dlamini/ });
  await rows.filter({ hasText: "R200,00" }).first().waitFor({ timeout: 20_000 });
  await page.waitForTimeout(3000); // a few more scheduler ticks: nothing more is made
  await page.reload();
  await page.getByRole("heading", { name: "Transaction History", level: 1 }).waitFor();
  await rows.first().waitFor();
  assert.equal(await rows.filter({ hasText: "R200,00" }).count(), 1);
  await rows.filter({ hasText: "R200,00" }).getByRole("button", { name: "View details of the transfer to Sipho Dlamini" }).click();
  const details = page.getByRole("dialog", { name: "Transaction Details" });
  await details.getByText(reference).waitFor();
  await page.keyboard.press("Escape");
  await details.waitFor({ state: "detached" });

  // Pause, resume, delete.
  await nav(page, "Recipients").click();
  await card.waitFor();
  await card.getByRole("button", { name: "Pause R200,00 to Sipho Dlamini, weekly" }).click();
  await toast(page, "Scheduled send paused").waitFor();
  await card.getByRole("button", { name: "Resume R200,00 to Sipho Dlamini, weekly" }).waitFor();
  assert.match(await card.innerText(), /Paused/);
  await card.getByRole("button", { name: "Resume R200,00 to Sipho Dlamini, weekly" }).click();
  await toast(page, "Scheduled send resumed").waitFor();
  await card.getByRole("button", { name: "Pause R200,00 to Sipho Dlamini, weekly" }).waitFor();
  await card.getByText(days.nextWeek).waitFor();

  await card.getByRole("button", { name: "Delete R200,00 to Sipho Dlamini, weekly" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Delete scheduled send" });
  await confirm.getByRole("button", { name: "Delete" }).click();
  await toast(page, "Scheduled send deleted").waitFor();
  await card.waitFor({ state: "detached" });

  // A schedule paying with a card the bank declines: its send made a transfer, which failed, and
  // the schedule says so with the reason, never "Sent".
  await nav(page, "Payment Methods").click();
  await page.getByRole("heading", { name: "Payment Methods", level: 1 }).waitFor();
  await page.getByRole("button", { name: "Add Method" }).click();
  const add = page.getByRole("dialog", { name: "Add Payment Method" });
  await add.getByLabel("Card Name").fill("Declined Visa");
  await add.getByLabel("Card Number").pressSequentially("4000000000000002");
  await add.getByRole("combobox", { name: "Expiry month" }).selectOption("08");
  await add.getByRole("combobox", { name: "Expiry year" }).selectOption(String(new Date().getFullYear() + 1));
  await add.getByLabel("CVV").fill("123");
  await add.getByRole("button", { name: "Add Payment Method" }).click();
  await toast(page, "Payment method added").waitFor();
  await add.waitFor({ state: "detached" });
  await nav(page, "Recipients").click();
  await page.getByRole("button", { name: "Schedule a send to Sipho Dlamini" }).click();
  await dialog.waitFor();
  await dialog.getByLabel("Amount (ZAR)").fill("100");
  await dialog.getByLabel("Card").selectOption({ label: "Declined Visa (•••• 0002)" });
  // Nothing is scheduled before the fee is shown: wait for R100's.
  await charge.getByText(/^R\d[\d\s]*,\d\d is charged to your card every week\./).waitFor();
  assert.match(await charge.innerText(), /Send amount\s+R100,00/);
  await dialog.getByRole("button", { name: "Schedule send" }).click();
  await stepUp.or(toast(page, "Scheduled send created")).first().waitFor({ timeout: 20_000 });
  if (await stepUp.isVisible()) {
    await stepUp.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await stepUp.getByRole("button", { name: "Confirm and schedule" }).click();
  }
  await dialog.waitFor({ state: "detached", timeout: 20_000 });
  const declined = page.getByRole("region", { name: "R100,00 to Sipho Dlamini, weekly" });
  await declined.getByText(/Failed: .*declined/).waitFor({ timeout: 30_000 });
  assert.match(await declined.innerText(), new RegExp(`${days.today} · Failed: `));
  assert.doesNotMatch(await declined.innerText(), /Sent, reference/);
  await declined.getByRole("button", { name: "Delete R100,00 to Sipho Dlamini, weekly" }).click();
  await confirm.getByRole("button", { name: "Delete" }).click();
  await declined.waitFor({ state: "detached" });

  // The monthly repeat has not run (its first send is a month away); delete it too.
  assert.match(await monthly.innerText(), /None yet\./);
  await monthly.getByRole("button", { name: "Delete R150,00 to Sipho Dlamini, monthly" }).click();
  await confirm.getByRole("button", { name: "Delete" }).click();
  await scheduled.getByText(/No scheduled sends yet/).waitFor();
  await context.close();
});
