// The browser tests' harness: a throw-away Thumela stack (its own database and NATS, removed
// at the end) and Debian's Chromium driven by playwright-core.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

/** Starts bin/thumela-dev in ephemeral mode and resolves once the BFF is healthy. */
export async function startStack() {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "thumela-e2e-"));
  const env = { ...process.env };
  delete env.NATS_URL; // always an embedded, throw-away NATS
  env.DATABASE_URL =
    process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable";
  const child = spawn(
    join(root, "bin", "thumela-dev"),
    ["-ephemeral", "-http", `127.0.0.1:${port}`, "-data", dataDir, "-root", root],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  const logs = [];
  const keep = (chunk) => {
    for (const line of chunk.toString().split("\n")) if (line) logs.push(line);
    if (logs.length > 2000) logs.splice(0, logs.length - 2000);
  };
  child.stderr.on("data", keep);
  const baseURL = await new Promise((resolveURL, reject) => {
    const timer = setTimeout(() => reject(new Error("stack did not start:\n" + logs.join("\n"))), 120_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`thumela-dev exited with ${code}:\n` + logs.join("\n")));
    });
    child.stdout.on("data", (chunk) => {
      keep(chunk);
      const m = /THUMELA_READY (\S+)/.exec(chunk.toString());
      if (m) {
        clearTimeout(timer);
        // Browsers keep Secure cookies from http://localhost (a secure context), so the tests
        // use that name rather than the loopback address the stack reports.
        resolveURL(m[1].replace("127.0.0.1", "localhost"));
      }
    });
  });
  return {
    baseURL,
    logs,
    async stop() {
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

/** Reads the newest message for a recipient from the dev outbox (development mode only). */
export async function latestMessage(baseURL, recipient, { template, timeoutMs = 15_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${baseURL}/dev/outbox?format=json`);
    if (res.ok) {
      const { messages } = await res.json();
      const found = messages.filter(
        (m) => m.recipient === recipient && (!template || m.template === template),
      );
      if (found.length > 0) return found[found.length - 1];
    }
    if (Date.now() > deadline) throw new Error(`no message for ${recipient} in the dev outbox`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A fresh e-mail address per test run, so that runs never collide. */
export function uniqueEmail(prefix = "e2e") {
  return `${prefix}+${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}@example.co.za`;
}
