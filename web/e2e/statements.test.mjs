// Statements and proofs of payment in Debian's Chromium against the real stack
// (docs/statements.md): a new sender sends one transfer and, once it is completed, downloads
// this month's statement from /transactions as CSV and as PDF, then the transfer's proof of
// payment from its details dialog. The files are read back (the PDFs' compressed streams
// through pdfjs-dist's Node build) and must show the reference, the recipient, the phone with
// only its last 4 digits and the amounts the web showed, and never the voucher number or the
// full phone. A period whose last day is before its first shows the error and downloads nothing.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import { launchBrowser, smsFor, startStack } from "./harness.mjs";
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
const RECIPIENT = { name: "Lerato Mokoena", phone: "082 555 0188", bank: "Capitec" };
const MASKED_PHONE = "+27 ** *** 0188";
// The full number in any notation, once spaces are taken out: 0825550188, +27825550188.
const FULL_PHONE_DIGITS = "825550188";

/** The text of every page of a PDF, pdf.js's text items joined by spaces. */
async function pdfText(path) {
  const data = new Uint8Array(await readFile(path));
  const pdf = await getDocument({ data, isEvalSupported: false, useSystemFonts: false }).promise;
  try {
    const pages = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const content = await (await pdf.getPage(n)).getTextContent();
      pages.push(content.items.map((item) => item.str ?? "").join(" "));
    }
    // One kind of space, one at a time: en-ZA groups thousands with a no-break space.
    return pages.join("\n").replace(/[\u00a0\u202f]/g, " ").replace(/[ \t]+/g, " ");
  } finally {
    await pdf.destroy();
  }
}

/** RFC 4180 CSV (quoted fields, doubled quotes, CRLF) → rows of fields. */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += c;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** "R1 250,50" as the web shows it → "1250.50" as the CSV writes it. */
function randToDecimal(shown) {
  const m = /^R([\d\s\u00a0\u202f]+),(\d{2})$/.exec(shown.trim());
  assert.ok(m, `not an amount as the web shows it: ${shown}`);
  return `${m[1].replace(/\D/g, "")}.${m[2]}`;
}

function sameSpaces(s) {
  return s.replace(/[\u00a0\u202f]/g, " ");
}

/** Asserts that a file's text has no voucher number and no full phone number. */
function assertNothingSecret(text, voucher, what) {
  const compact = text.replace(/\s+/g, "");
  assert.ok(!compact.includes(voucher), `${what} shows the voucher number ${voucher}`);
  assert.ok(!compact.includes(FULL_PHONE_DIGITS), `${what} shows the full phone number`);
}

/** Clicks `link` and resolves the download it starts: its suggested name and its file's path. */
async function download(page, link) {
  const [file] = await Promise.all([page.waitForEvent("download"), link.click()]);
  const failure = await file.failure();
  assert.equal(failure, null, `the download failed: ${failure}`);
  return { name: file.suggestedFilename(), path: await file.path() };
}

test("a sender downloads the month's statement as CSV and PDF and the transfer's proof of payment; neither shows the voucher number or the full phone", async () => {
  const context = await chromium.browser.newContext({ acceptDownloads: true });
  const { page, firstName, lastName, email } = await signUpVerified(context, stack.baseURL, { prefix: "statement" });

  // One transfer, sent and completed. ATMs pay out notes, so the wizard refuses cents
  // (multiples of R10 only); R1 250 has a thousands group, the space en-ZA writes it with.
  await page.goto(`${stack.baseURL}/send-money`);
  await page.getByRole("heading", { name: "Send Money", level: 1 }).waitFor();
  const amountField = page.getByLabel("Amount to Send (ZAR)");
  await amountField.fill("245.50");
  await page.getByRole("button", { name: "Next" }).click();
  await page.locator("#send-amount-error").filter({ hasText: "ATMs pay out notes: choose an amount in multiples of R10." }).waitFor();
  await amountField.fill("1250");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Recipient Name").fill(RECIPIENT.name);
  await page.getByLabel("Recipient Phone Number").fill(RECIPIENT.phone);
  await page.getByRole("combobox", { name: "Bank" }).selectOption({ label: RECIPIENT.bank });
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("button", { name: "Add Payment Method" }).click();
  const addCard = page.getByRole("dialog", { name: "Add Payment Method" });
  await addCard.getByLabel("Card Name").fill("Personal Visa");
  await addCard.getByLabel("Card Number").pressSequentially("4242424242424242");
  await addCard.getByRole("combobox", { name: "Expiry month" }).selectOption("08");
  await addCard.getByRole("combobox", { name: "Expiry year" }).selectOption(NEXT_YEAR);
  await addCard.getByLabel("CVV").fill("123");
  await addCard.getByRole("button", { name: "Add Payment Method" }).click();
  await toast(page, "Card added successfully").waitFor();
  await addCard.waitFor({ state: "detached" });
  await page.getByRole("button", { name: "Next" }).click();
  await clickSendMoney(page);
  await page.getByText("Your transfer has been completed successfully!").waitFor({ timeout: 20_000 });
  const panel = await page.getByRole("status").filter({ hasText: "Voucher number" }).innerText();
  const voucher = /Voucher number\s*(\d{10})/.exec(panel)?.[1];
  assert.ok(voucher, `no 10-digit voucher number in: ${panel}`);
  // The recipient's SMS carries that number: the files must not.
  const sms = await smsFor(stack.baseURL, RECIPIENT.phone, /Voucher number/);
  assert.ok(sms.body.includes(voucher));

  // The history and the transfer's details as the web shows them.
  await page.goto(`${stack.baseURL}/transactions`);
  await page.getByRole("heading", { name: "Transaction History", level: 1 }).waitFor();
  const historyRow = page.getByRole("row", { name: new RegExp(RECIPIENT.name) });
  await historyRow.getByText("Completed").waitFor();
  await historyRow.click();
  const details = page.getByRole("dialog", { name: "Transaction Details" });
  await details.getByText("COMPLETED").waitFor();
  const detailsText = await details.innerText();
  const reference = /Reference number\s*([0-9a-f]{8})/.exec(detailsText)?.[1];
  assert.ok(reference, `no reference in: ${detailsText}`);
  const shown = {};
  for (const term of ["Amount", "Fee", "Total"]) {
    shown[term] = (await details.locator(`dt:text-is("${term}") + dd`).innerText()).split("\n")[0].replace(/First transfer free/, "").trim();
  }
  assert.equal(shown.Amount.replace(/\s/g, ""), "R1250,00");
  assert.match(detailsText, /First transfer free/); // so both fees are charged as 0.00

  // The proof of payment, from the details dialog.
  const proof = await download(page, details.getByRole("link", { name: "Proof of payment (PDF)" }));
  assert.equal(proof.name, `thumela-proof-of-payment-${reference}.pdf`);
  const proofText = await pdfText(proof.path);
  for (const expected of [reference, RECIPIENT.name, MASKED_PHONE, RECIPIENT.bank, shown.Amount, shown.Fee, shown.Total, `${firstName} ${lastName}`, "Completed"]) {
    assert.ok(proofText.includes(sameSpaces(expected)), `the proof of payment has no "${expected}":\n${proofText}`);
  }
  assertNothingSecret(proofText, voucher, "the proof of payment");
  await details.getByRole("button", { name: "Close" }).click();
  await details.waitFor({ state: "detached" });

  // Every statement request and download the page makes from here on.
  const statementRequests = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/api/statement") statementRequests.push(request.url());
  });
  const downloads = [];
  page.on("download", (d) => downloads.push(d.suggestedFilename()));

  // A period whose last day is before its first: the dialog says so and offers no link.
  await page.getByRole("button", { name: "Download statement" }).click();
  const dialog = page.getByRole("dialog", { name: "Download statement" });
  const from = dialog.getByLabel("From");
  const to = dialog.getByLabel("To");
  const month = { from: await from.inputValue(), to: await to.inputValue() };
  assert.match(month.from, /^\d{4}-\d{2}-01$/);
  await from.fill(month.to);
  await to.fill(month.from);
  await dialog.getByRole("alert").filter({ hasText: "The last day is before the first day." }).waitFor();
  assert.equal(await to.getAttribute("aria-invalid"), "true");
  assert.equal(await dialog.getByRole("link", { name: "Download" }).count(), 0);
  const disabled = dialog.getByRole("button", { name: "Download", exact: true });
  assert.equal(await disabled.isDisabled(), true);
  await disabled.click({ force: true }); // a disabled button does nothing, even when clicked

  // Back to this month: the error goes and the link comes back.
  await from.fill(month.from);
  await to.fill(month.to);
  await dialog.getByRole("alert").waitFor({ state: "detached" });
  assert.equal(await to.getAttribute("aria-invalid"), "false");

  // CSV.
  await dialog.getByRole("radio", { name: "CSV (spreadsheet)" }).check();
  const csv = await download(page, dialog.getByRole("link", { name: "Download", exact: true }));
  // The only statement the page asked for and downloaded is this one: the bad period made none.
  assert.deepEqual(downloads, [csv.name]);
  assert.equal(statementRequests.length, 1, `statement requests: ${statementRequests.join(", ")}`);
  assert.match(statementRequests[0], /format=csv/);
  assert.equal(csv.name, `thumela-statement-${month.from}-to-${month.to}.csv`);
  const csvText = await readFile(csv.path, "utf8");
  assert.ok(csvText.endsWith("\r\n"), "RFC 4180 lines end in CRLF");
  const rows = parseCsv(csvText);
  assert.deepEqual(rows[0], ["date", "reference", "recipient", "phone", "bank", "amount", "bank fee", "platform fee", "total", "status", "voucher state"]);
  assert.equal(rows.length, 2, `one transfer, one row:\n${csvText}`);
  const [date, ref, recipient, phone, bank, amount, bankFee, platformFee, total, status, voucherState] = rows[1];
  assert.match(date, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+02:00$/);
  assert.ok(date.slice(0, 10) >= month.from && date.slice(0, 10) <= month.to, `${date} is not in ${month.from}..${month.to}`);
  assert.equal(ref, reference);
  assert.equal(recipient, RECIPIENT.name);
  assert.equal(phone, MASKED_PHONE);
  assert.equal(bank, RECIPIENT.bank);
  assert.equal(amount, randToDecimal(shown.Amount));
  assert.equal(amount, "1250.00");
  assert.equal(bankFee, "0.00");
  assert.equal(platformFee, "0.00");
  assert.equal((Number(bankFee) + Number(platformFee)).toFixed(2), randToDecimal(shown.Fee));
  assert.equal(total, randToDecimal(shown.Total));
  for (const value of [amount, bankFee, platformFee, total]) assert.match(value, /^\d+\.\d{2}$/);
  assert.equal(status, "Completed");
  assert.equal(voucherState, "Awaiting collection");
  assertNothingSecret(csvText, voucher, "the CSV statement");

  // PDF: the same dialog, still open.
  await dialog.getByRole("radio", { name: "PDF" }).check();
  const pdf = await download(page, dialog.getByRole("link", { name: "Download", exact: true }));
  assert.equal(pdf.name, `thumela-statement-${month.from}-to-${month.to}.pdf`);
  assert.deepEqual(downloads, [csv.name, pdf.name]);
  const statementText = await pdfText(pdf.path);
  for (const expected of [reference, RECIPIENT.name, MASKED_PHONE, shown.Amount, shown.Total, `${firstName} ${lastName}`, email, "Total charged"]) {
    assert.ok(statementText.includes(sameSpaces(expected)), `the PDF statement has no "${expected}":\n${statementText}`);
  }
  // Sent, fees and total charged: the one completed transfer's figures.
  assert.match(statementText, new RegExp(`Total charged\\s*${sameSpaces(shown.Total)}`), statementText);
  assertNothingSecret(statementText, voucher, "the PDF statement");
  await context.close();
});
