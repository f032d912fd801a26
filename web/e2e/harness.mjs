// The browser tests' harness: a throw-away Thumela stack (its own database and NATS, removed
// at the end) and Debian's Chromium driven by playwright-core.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Starts bin/thumela-dev in ephemeral mode and resolves once the BFF is healthy. `env` (optional,
 * e.g. { TRANSFERS_LIMIT_DAILY_CENTS: "437000" }) is added to the stack's environment, which
 * every service of the stack inherits. With `faults: true` the stack keeps running when one of
 * its processes exits, and `stopProcess(name)` / `startProcess(name)` take one down (SIGTERM,
 * resolved once it has exited) and start it again (not waiting for it to be ready).
 */
export async function startStack({ env: extraEnv = {}, faults = false } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "thumela-e2e-"));
  const env = { ...process.env, ...extraEnv };
  delete env.NATS_URL; // always an embedded, throw-away NATS
  // The suite sends dozens of vouchers to the same few phones in one stack: the per-number SMS
  // budget (ten a day) is raised, not turned off, so its check still runs on every SMS.
  env.NOTIFICATIONS_SMS_PER_RECIPIENT_PER_DAY ??= "1000";
  env.DATABASE_URL =
    process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable";
  // Port 0: the stack opens the BFF's socket on a free port itself, as it does every socket its
  // processes serve on (platform/listen), so none can be taken in between, and reports the
  // address in its THUMELA_READY line.
  const args = ["-ephemeral", "-http", "127.0.0.1:0", "-data", dataDir, "-root", root];
  if (faults) args.push("-faults");
  let stopping = false;
  const child = spawn(join(root, "bin", "thumela-dev"), args, { env, stdio: ["ignore", "pipe", "pipe"] });
  const logs = [];
  const keep = (chunk) => {
    for (const line of chunk.toString().split("\n")) if (line) logs.push(line);
    if (logs.length > 2000) logs.splice(0, logs.length - 2000);
  };
  child.stderr.on("data", keep);
  const { baseURL, faultsURL } = await new Promise((resolveURLs, reject) => {
    const timer = setTimeout(() => reject(new Error("stack did not start:\n" + logs.join("\n"))), 120_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      rmSync(dataDir, { recursive: true, force: true });
      const err = new Error(`thumela-dev exited with ${code}:\n` + logs.join("\n"));
      reject(err);
      // After "ready" nothing waits on that promise: a stack that dies under its tests would
      // leave them only "connection refused". Say why, where the test run prints it.
      if (!stopping) process.stderr.write(`\n${err.message}\n`);
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      keep(chunk);
      out += chunk.toString();
      const ready = /THUMELA_READY (\S+)\n/.exec(out);
      const control = /THUMELA_FAULTS (\S+)\n/.exec(out);
      if (ready && (!faults || control)) {
        clearTimeout(timer);
        child.stdout.removeAllListeners("data");
        child.stdout.on("data", keep);
        // Browsers keep Secure cookies from http://localhost (a secure context), so the tests
        // use that name rather than the loopback address the stack reports.
        resolveURLs({ baseURL: ready[1].replace("127.0.0.1", "localhost"), faultsURL: control?.[1] });
      }
    });
  });
  const fault = async (action, name) => {
    if (!faultsURL) throw new Error("start the stack with { faults: true } to stop and start its processes");
    const res = await fetch(`${faultsURL}/${action}?process=${encodeURIComponent(name)}`, { method: "POST" });
    if (!res.ok) throw new Error(`${action} ${name}: ${res.status} ${await res.text()}`);
  };
  return {
    baseURL,
    logs,
    stopProcess: (name) => fault("stop", name),
    startProcess: (name) => fault("start", name),
    async stop() {
      stopping = true;
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Launches Debian's Chromium with the flags this machine needs (playwright gives it a fresh,
 * temporary profile). */
export async function launchBrowser() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}

/**
 * The dev outbox: what the dev stack's SMTP sink and SMS provider stand-in received, oldest
 * first (`GET /dev/outbox?format=json`, proxied by the BFF to the dev tools in development mode).
 * Each message: {id, channel "email"|"sms", recipient, subject, body, template, created_at,
 * status}. E-mails carry their template (X-Thumela-Template: sign_up_code, password_reset_code,
 * support_message, …) and the text part as body; SMS have no template (the provider's API
 * carries none), so they are told apart by recipient and body.
 */
export async function outboxMessages(baseURL) {
  const res = await fetch(`${baseURL}/dev/outbox?format=json`);
  if (!res.ok) throw new Error(`GET /dev/outbox: ${res.status} ${await res.text()}`);
  const { messages } = await res.json();
  return messages ?? [];
}

/** Polls the dev outbox until `pick` finds a message among them (newest match), or fails. */
async function waitForMessage(baseURL, what, pick, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  for (;;) {
    try {
      const found = (await outboxMessages(baseURL)).filter(pick);
      if (found.length > 0) return found[found.length - 1];
    } catch (error) {
      lastError = error; // the dev tools may still be starting
    }
    if (Date.now() > deadline) throw new Error(`no ${what} in the dev outbox${lastError ? ` (${lastError.message})` : ""}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** The newest e-mail to `recipient` (of `template`, when given) in the dev outbox. */
export function latestMessage(baseURL, recipient, { template, timeoutMs = 20_000 } = {}) {
  return waitForMessage(
    baseURL,
    `e-mail${template ? ` "${template}"` : ""} for ${recipient}`,
    (m) => m.channel === "email" && m.recipient === recipient && (!template || m.template === template),
    timeoutMs,
  );
}

/**
 * The newest SMS to this South African mobile (any notation: "082 123 4567", "+27821234567")
 * whose body matches `body` (e.g. /Voucher number/).
 */
export function smsFor(baseURL, number, body = /./, { timeoutMs = 20_000 } = {}) {
  const digits = number.replace(/\D/g, "").replace(/^0/, "").replace(/^27/, "");
  return waitForMessage(
    baseURL,
    `SMS matching ${body} for ${number}`,
    (m) => m.channel === "sms" && String(m.recipient).replace(/\D/g, "").endsWith(digits) && body.test(m.body),
    timeoutMs,
  );
}

/** South African mobile → E.164 (+27…), as the SMS stand-in's failure switches want it. */
export function e164(number) {
  return "+27" + number.replace(/\D/g, "").replace(/^0/, "").replace(/^27/, "");
}

/**
 * Makes the SMS stand-in fail a number: "permanent" (accepted, then a FAILED.NOT_SENT report)
 * or "transient" (the API answers 503 for `seconds`).
 */
export async function failSms(baseURL, number, mode = "permanent", seconds = 0) {
  const res = await fetch(`${baseURL}/dev/sms/failures`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ number: e164(number), mode, seconds }),
  });
  if (!res.ok) throw new Error(`POST /dev/sms/failures: ${res.status} ${await res.text()}`);
}

/** Clears every SMS failure the tests set. */
export async function clearSmsFailures(baseURL) {
  const res = await fetch(`${baseURL}/dev/sms/failures`, { method: "DELETE" });
  if (!res.ok) throw new Error(`DELETE /dev/sms/failures: ${res.status}`);
}

/** A fresh e-mail address per test run, so that runs never collide. */
export function uniqueEmail(prefix = "e2e") {
  return `${prefix}+${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}@example.co.za`;
}
