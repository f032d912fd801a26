// The public site, the Help Center, BETA features, Refer a Friend, the signed-in hint, theme,
// mobile layout, first-party analytics and an accessibility scan, in Debian's Chromium against
// the real stack.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { logOut, signUpVerified } from "./flows.mjs";
import { latestMessage, launchBrowser, startStack, uniqueEmail } from "./harness.mjs";

const AXE_PATH = join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "axe-core", "axe.min.js");
const NOT_FOUND = "Oops! Page not found";

/** The spec's public routes (and Thumela's /fees and blog articles) with their h1. */
const PUBLIC_ROUTES = [
  ["/", "Send cash to any ATM in South Africa"],
  ["/login", "Welcome Back"],
  ["/signup", "Create Your Account"],
  ["/otp-verification", "Verify Your Identity"],
  ["/forgot-password", "Forgot Password"],
  ["/about", "About"],
  ["/careers", "Careers"],
  ["/press", "Press"],
  ["/blog", "Blog"],
  ["/blog/how-atm-cash-send-works", "How ATM cash send works: from your card to their hand"],
  ["/privacy", "Privacy Policy"],
  ["/terms", "Terms of Service"],
  ["/compliance", "Compliance"],
  ["/security", "Security"],
  ["/cookies", "Cookie Policy"],
  ["/fees", "Fee Schedule"],
  ["/contact", "Contact"],
  ["/faq", "FAQ"],
  ["/support", "Support"],
  ["/feedback", "Feedback"],
  // Public (spec §1), in the public shell for a visitor; also signed in, in the app's frame.
  ["/help", "Help Center"],
  ["/accessibility", "Accessibility"],
  ["/sitemap", "Sitemap"],
  ["/responsible-disclosure", "Responsible Disclosure"],
];

/** The signed-in routes of the spec's table with their h1. */
const SIGNED_IN_ROUTES = [
  ["/dashboard", "Quick Actions"],
  ["/send-money", "Send Money"],
  ["/payment-methods", "Payment Methods"],
  ["/transactions", "Transaction History"],
  ["/account", "Account"],
  ["/help", "Help Center"],
  ["/refer-friend", "Refer a Friend"],
  ["/beta-features", "BETA Features"],
];

const ALLOWED_EVENTS = new Set([
  "transaction_started",
  "transaction_completed",
  "transaction_failed",
  "transaction_step_completed",
  "user_logged_in",
  "user_signed_up",
  "user_logged_out",
  "password_reset_requested",
  "profile_updated",
  "Application Closed",
  "landing_page_viewed",
  "clicked_features_section",
  "js_error",
  "unhandled_promise_rejection",
  "$pageview",
  "$pageleave",
  "$identify",
  "$reset",
]);

let stack;
let chromium;
/** A browser context signed in as a freshly signed-up user. */
let signedIn;

before(async () => {
  stack = await startStack();
  chromium = await launchBrowser();
  signedIn = await chromium.browser.newContext({ bypassCSP: true });
  await signUp(signedIn);
});

after(async () => {
  await signedIn?.close();
  await chromium?.close();
  await stack?.stop();
});

/** Signs a new user up and verifies the e-mailed code; the context keeps the session cookie. */
async function signUp(context) {
  const page = await context.newPage();
  const email = uniqueEmail("site");
  await page.goto(`${stack.baseURL}/signup`);
  await page.getByRole("heading", { name: "Create Your Account" }).waitFor();
  await page.getByLabel("First name").fill("Naledi");
  await page.getByLabel("Last name").fill("Khumalo");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill("Correct-Horse-42");
  await page.getByLabel("Confirm password").fill("Correct-Horse-42");
  await page.getByRole("button", { name: /create account|sign up/i }).click();
  await page.getByRole("heading", { name: "Verify Your Identity" }).waitFor();
  const message = await latestMessage(stack.baseURL, email, { template: "sign_up_code" });
  const code = /\b(\d{6})\b/.exec(message.body)?.[1];
  assert.ok(code, `no 6-digit code in: ${message.body}`);
  await page.getByLabel(/code/i).fill(code);
  await page.getByRole("button", { name: /verify/i }).click();
  await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
  await page.close();
  return email;
}

/** Opens a path and checks that its own page answered: its h1, and not the 404 page. */
async function expectPage(page, path, heading) {
  await page.goto(`${stack.baseURL}${path}`);
  await page.getByRole("heading", { level: 1, name: heading, exact: true }).waitFor({ timeout: 15_000 });
  assert.equal(await page.getByRole("heading", { name: NOT_FOUND }).count(), 0, `${path} showed the 404 page`);
}

describe("routes", () => {
  test("every public route of the spec answers with its own page", async () => {
    const page = await chromium.browser.newPage();
    for (const [path, heading] of PUBLIC_ROUTES) await expectPage(page, path, heading);
    await page.close();
  });

  test("every signed-in route answers with its own page after signing up", async () => {
    const page = await signedIn.newPage();
    for (const [path, heading] of SIGNED_IN_ROUTES) await expectPage(page, path, heading);
    await page.close();
  });

  test("no page breaks the Content Security Policy, forms included (they validate without eval)", async () => {
    // The policy is enforced here (the shared signed-in context bypasses it for the axe scan).
    const context = await chromium.browser.newContext();
    await context.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (e) =>
        console.warn(`csp-violation ${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
      );
    });
    const violations = [];
    context.on("console", (message) => {
      if (message.text().startsWith("csp-violation")) violations.push(`${message.page()?.url()}: ${message.text()}`);
    });
    const page = await context.newPage();
    // The public forms: an empty sign-in and a mistyped sign-up run their validation.
    await page.goto(`${stack.baseURL}/login`);
    await page.getByRole("button", { name: "Log In" }).click();
    await page.goto(`${stack.baseURL}/signup`);
    await page.getByLabel("Email").fill("not-an-address");
    await page.getByRole("button", { name: "Create Account" }).click();
    await page.getByRole("heading", { name: "Create Your Account" }).waitFor();
    for (const [path, heading] of PUBLIC_ROUTES) await expectPage(page, path, heading);
    // Signed in (the sign-up's own form included), every page of the shell.
    await signUp(context);
    for (const [path, heading] of [...SIGNED_IN_ROUTES, ["/recipients", "Recipients"]]) await expectPage(page, path, heading);
    await page.goto(`${stack.baseURL}/send-money`);
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByLabel("Amount to Send (ZAR)").waitFor();
    assert.deepEqual(violations, []);
    await context.close();
  });

  test("every footer link resolves to a page", async () => {
    const page = await chromium.browser.newPage();
    await page.goto(`${stack.baseURL}/`);
    const footer = page.getByRole("contentinfo");
    const hrefs = await footer
      .locator('a[href^="/"]')
      .evaluateAll((links) => [...new Set(links.map((link) => link.getAttribute("href")))]);
    assert.ok(hrefs.length >= 17, `only ${hrefs.length} footer links`);
    for (const href of hrefs) {
      await page.goto(`${stack.baseURL}${href}`);
      await page.getByRole("heading", { level: 1 }).first().waitFor({ timeout: 15_000 });
      assert.equal(await page.getByRole("heading", { name: NOT_FOUND }).count(), 0, `footer link ${href} is a 404`);
      // Every footer page is public: none sends the visitor to log in (/help did).
      assert.equal(new URL(page.url()).pathname, href, `footer link ${href} went to ${page.url()}`);
    }
    await page.close();
  });

  test("an unknown path shows the 404 page with a link home, and the path is logged", async () => {
    const page = await chromium.browser.newPage();
    const warnings = [];
    page.on("console", (message) => {
      if (message.type() === "warning") warnings.push(message.text());
    });
    await page.goto(`${stack.baseURL}/no/such/page`);
    await page.getByRole("heading", { name: NOT_FOUND }).waitFor();
    assert.ok(warnings.some((text) => text.includes("/no/such/page")), `not logged: ${warnings.join(" | ")}`);
    await page.getByRole("link", { name: "Return to Home" }).click();
    await page.getByRole("heading", { level: 1, name: "Send cash to any ATM in South Africa" }).waitFor();

    await page.goto(`${stack.baseURL}/blog/no-such-article`);
    await page.getByRole("heading", { name: NOT_FOUND }).waitFor();
    await page.close();
  });
});

describe("signed-in hint", () => {
  const GET_SESSION = "/thumela.bff.v1.AuthService/GetSession";

  /**
   * Watches a browser context: its GetSession requests (with their status once answered) and
   * every console error and uncaught exception of its pages.
   */
  function watch(context) {
    const seen = { getSession: [], errors: [] };
    context.on("request", (request) => {
      if (new URL(request.url()).pathname === GET_SESSION) seen.getSession.push(request);
    });
    context.on("console", (message) => {
      if (message.type() === "error") seen.errors.push(`${message.page()?.url()}: ${message.text()}`);
    });
    context.on("weberror", (error) => seen.errors.push(`uncaught: ${error.error().message}`));
    return seen;
  }

  /** Opens path, waits for its h1 and for the network to settle (lazy chunks, late queries). */
  async function open(page, path, heading) {
    await page.goto(`${stack.baseURL}${path}`);
    await page.getByRole("heading", { level: 1, name: heading }).waitFor({ timeout: 15_000 });
    await page.waitForLoadState("networkidle");
  }

  async function cookieNamed(context, name) {
    return (await context.cookies(stack.baseURL)).find((cookie) => cookie.name === name);
  }

  test("a visitor's landing page, /help and its contact form ask no GetSession and log no console error", async () => {
    const context = await chromium.browser.newContext();
    const seen = watch(context);
    const page = await context.newPage();
    await open(page, "/", "Send cash to any ATM in South Africa");
    await open(page, "/help", "Help Center");
    // Still the visitor's frame: the public header, not the signed-in sidebar.
    await page.getByRole("banner").getByRole("link", { name: "Log In" }).waitFor();
    await open(page, "/help?tab=contact", "Help Center");
    await page.getByLabel("Your email (so we can reply)").waitFor();
    await open(page, "/login", "Welcome Back");
    assert.deepEqual(seen.getSession.map((request) => request.url()), []);
    assert.deepEqual(seen.errors, []);
    await context.close();
  });

  test("signed up, a reload asks the BFF and stays signed in; signed out, the landing page asks nothing", async () => {
    const context = await chromium.browser.newContext();
    const seen = watch(context);
    const { page } = await signUpVerified(context, stack.baseURL, { prefix: "hint" });
    const session = await cookieNamed(context, "thumela_session");
    const hint = await cookieNamed(context, "thumela_signed_in");
    assert.ok(session?.httpOnly, `session cookie: ${JSON.stringify(session)}`);
    assert.ok(hint && !hint.httpOnly, `hint cookie: ${JSON.stringify(hint)}`);
    assert.ok(Math.abs(hint.expires - session.expires) < 2, `the hint expires at ${hint.expires}, the session at ${session.expires}`);

    const asked = page.waitForResponse((response) => new URL(response.url()).pathname === GET_SESSION);
    await page.reload();
    assert.equal((await asked).status(), 200);
    await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/dashboard");

    await logOut(page);
    assert.equal(await cookieNamed(context, "thumela_session"), undefined, "the session cookie is left");
    assert.equal(await cookieNamed(context, "thumela_signed_in"), undefined, "the hint is left");
    seen.getSession.length = 0;
    await open(page, "/", "Send cash to any ATM in South Africa");
    // A signed-in route now goes to log in without asking either.
    await open(page, "/dashboard", "Welcome Back");
    assert.equal(new URL(page.url()).pathname, "/login");
    assert.deepEqual(seen.getSession.map((request) => request.url()), []);
    assert.deepEqual(seen.errors, []);
    await context.close();
  });

  test("a hint left without its session costs one GetSession, whose answer clears it", async () => {
    const context = await chromium.browser.newContext();
    const seen = watch(context);
    await context.addCookies([{ name: "thumela_signed_in", value: "1", url: stack.baseURL }]);
    const page = await context.newPage();
    await open(page, "/help", "Help Center");
    assert.deepEqual(await Promise.all(seen.getSession.map(async (request) => (await request.response())?.status())), [401]);
    assert.equal(await cookieNamed(context, "thumela_signed_in"), undefined, "the stale hint is left");
    await page.getByRole("banner").getByRole("link", { name: "Log In" }).waitFor();

    seen.getSession.length = 0;
    await open(page, "/help", "Help Center");
    assert.deepEqual(seen.getSession.map((request) => request.url()), []);
    await context.close();
  });
});

describe("the public header of a signed-in visitor", () => {
  /**
   * Records every text the public header (the page's first <header>) ever had, from before the
   * app's first render: a button that showed for a moment and was then swapped shows up here.
   */
  async function recordHeader(context) {
    await context.addInitScript(() => {
      const seen = new Set();
      Object.defineProperty(window, "__headerTexts", { value: seen });
      new MutationObserver(() => {
        const header = document.querySelector("body header");
        if (header) seen.add(header.textContent.replace(/\s+/g, " ").trim());
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
  }
  const headerTexts = (page) => page.evaluate(() => [...window.__headerTexts]);

  test("signed in: Dashboard instead of Log In and Get Started, from the first render, asking nothing", async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await recordHeader(context);
    await signUp(context);
    const page = await context.newPage();
    const asked = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname.endsWith("/GetSession")) asked.push(request.url());
    });
    for (const [path, heading] of [["/", "Send cash to any ATM in South Africa"], ["/about", "About"], ["/faq", "FAQ"]]) {
      await page.goto(`${stack.baseURL}${path}`);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      const header = page.getByRole("banner").first();
      await header.getByRole("link", { name: "Dashboard" }).waitFor();
      const texts = await headerTexts(page);
      assert.ok(texts.some((text) => text.includes("Dashboard")), `${path}: header texts recorded: ${JSON.stringify(texts)}`);
      for (const text of texts) assert.doesNotMatch(text, /Log In|Get Started/, `${path}: the header showed "${text}"`);
    }
    await page.waitForLoadState("networkidle");
    assert.deepEqual(asked, [], "a public page asked GetSession");
    // The landing page's calls to action follow the header.
    await page.goto(`${stack.baseURL}/`);
    const hero = page.getByRole("region", { name: "Send cash to any ATM in South Africa" });
    assert.equal(await hero.getByRole("link", { name: "Send Money" }).getAttribute("href"), "/send-money");
    assert.equal(await page.getByRole("link", { name: /^(Log In|Get Started)$/ }).count(), 0);

    // By keyboard: Tab reaches Dashboard, Enter opens the dashboard.
    const dashboard = page.getByRole("banner").getByRole("link", { name: "Dashboard" });
    await dashboard.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/dashboard");

    // 375 px: Dashboard stays in the bar (where Get Started was) and ends the menu.
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(`${stack.baseURL}/blog`);
    await page.getByRole("heading", { level: 1, name: "Blog" }).waitFor();
    const bar = page.getByRole("banner").first();
    assert.equal(await bar.getByRole("link", { name: "Dashboard" }).first().isVisible(), true);
    await bar.getByRole("button", { name: "Open menu" }).click();
    const menu = page.getByRole("navigation", { name: "Mobile menu" });
    assert.deepEqual(await menu.getByRole("link").allInnerTexts(), ["About", "Fees", "Blog", "FAQ", "Support", "Dashboard"]);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 375, "the page scrolls sideways at 375 px");
    await menu.getByRole("link", { name: "Dashboard" }).click();
    await page.getByRole("heading", { name: "Quick Actions" }).waitFor();
    await context.close();
  });

  test("the header follows signing in and out, and a visitor never sees Dashboard, not even for a moment", async () => {
    const context = await chromium.browser.newContext();
    await recordHeader(context);
    const page = await context.newPage();
    const neverDashboard = async (when) => {
      const texts = await headerTexts(page);
      assert.ok(texts.some((text) => text.includes("Log In")), `${when}: header texts recorded: ${JSON.stringify(texts)}`);
      for (const text of texts) assert.doesNotMatch(text, /Dashboard/, `${when}: the header showed "${text}"`);
    };
    await page.goto(`${stack.baseURL}/`);
    await page.getByRole("banner").getByRole("link", { name: "Log In" }).waitFor();
    await page.getByRole("banner").getByRole("link", { name: "Get Started" }).waitFor();
    await neverDashboard("a visitor");

    const { page: app } = await signUpVerified(context, stack.baseURL, { prefix: "header" });
    await page.goto(`${stack.baseURL}/`);
    await page.getByRole("banner").getByRole("link", { name: "Dashboard" }).waitFor();
    await logOut(app);
    await page.goto(`${stack.baseURL}/`);
    await page.getByRole("banner").getByRole("link", { name: "Log In" }).waitFor();
    await neverDashboard("logged out");
    await context.close();
  });
});

describe("theme", () => {
  test("the chosen theme survives a reload, and 'system' follows the OS colour scheme live", async () => {
    const context = await chromium.browser.newContext({ colorScheme: "light" });
    const page = await context.newPage();
    const isDark = () => page.evaluate(() => document.documentElement.classList.contains("dark"));
    await page.goto(`${stack.baseURL}/`);
    assert.equal(await isDark(), false);

    // System (default) → Light → Dark.
    const toggle = page.getByRole("banner").getByRole("button", { name: /^Theme:/ });
    await toggle.click();
    await page.getByRole("button", { name: /^Theme: Light/ }).click();
    await page.getByRole("button", { name: /^Theme: Dark/ }).waitFor();
    assert.equal(await isDark(), true);
    await page.reload();
    await page.getByRole("button", { name: /^Theme: Dark/ }).waitFor();
    assert.equal(await isDark(), true, "dark did not survive the reload");
    assert.equal(await page.evaluate(() => localStorage.getItem("theme")), "dark");

    // Dark → System: follows the emulated colour scheme, live.
    await page.getByRole("button", { name: /^Theme: Dark/ }).click();
    await page.getByRole("button", { name: /^Theme: System/ }).waitFor();
    assert.equal(await isDark(), false);
    await page.emulateMedia({ colorScheme: "dark" });
    await page.waitForFunction(() => document.documentElement.classList.contains("dark"));
    await page.reload();
    assert.equal(await isDark(), true, "system/dark not applied on load");
    await page.emulateMedia({ colorScheme: "light" });
    await page.waitForFunction(() => !document.documentElement.classList.contains("dark"));
    await context.close();
  });

  test("the theme switch is reachable in the signed-in shell too", async () => {
    const page = await signedIn.newPage();
    await page.goto(`${stack.baseURL}/dashboard`);
    await page.getByRole("banner").getByRole("button", { name: /^Theme:/ }).waitFor();
    await page.close();
  });
});

describe("mobile (375 px)", () => {
  test("the public menu opens, lists the links and navigates; nothing overflows sideways", async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(`${stack.baseURL}/`);
    const header = page.getByRole("banner");
    assert.equal(await header.getByRole("link", { name: "Log In" }).first().isVisible(), false, "Log In should move into the menu");
    const open = header.getByRole("button", { name: "Open menu" });
    await open.click();
    const menu = page.getByRole("navigation", { name: "Mobile menu" });
    await menu.waitFor();
    assert.equal(await menu.getByRole("link", { name: "Log In" }).isVisible(), true);
    assert.equal(await menu.getByRole("link", { name: "Get Started" }).isVisible(), true);
    await menu.getByRole("link", { name: "FAQ" }).click();
    await page.getByRole("heading", { level: 1, name: "FAQ" }).waitFor();
    assert.equal(await menu.isVisible(), false, "the menu stays open after navigating");
    for (const path of ["/", "/faq", "/fees", "/compliance", "/blog"]) {
      await page.goto(`${stack.baseURL}${path}`);
      await page.getByRole("heading", { level: 1 }).first().waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 375, `${path} is ${width}px wide at 375px`);
    }
    await context.close();
  });
});

describe("mobile (375 px), by keyboard", () => {
  test("the open public menu keeps Tab between its button and its links; Escape and a chosen link close it onto the button", async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 375, height: 812 } });
    const page = await context.newPage();
    await page.goto(`${stack.baseURL}/`);
    const toggle = page.getByRole("banner").getByRole("button", { name: /^(Open|Close) menu$/ });
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label") || document.activeElement?.textContent?.trim());
    await toggle.focus();
    await page.keyboard.press("Enter");
    const menu = page.getByRole("navigation", { name: "Mobile menu" });
    await menu.waitFor();
    assert.equal(await toggle.getAttribute("aria-expanded"), "true");
    const links = await menu.getByRole("link").allInnerTexts();
    assert.deepEqual(links, ["About", "Fees", "Blog", "FAQ", "Support", "Log In", "Get Started"]);
    // Round: every link, then back to the button; backwards from the button to the last link.
    for (const link of links) {
      await page.keyboard.press("Tab");
      assert.equal(await focused(), link);
    }
    await page.keyboard.press("Tab");
    assert.equal(await focused(), "Close menu");
    await page.keyboard.press("Shift+Tab");
    assert.equal(await focused(), "Get Started");
    await page.keyboard.press("Shift+Tab");
    assert.equal(await focused(), "Log In");
    // Escape from a link: closed, the focus on the button.
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "hidden" });
    assert.equal(await focused(), "Open menu");
    // A link chosen with Enter: the page changes, the menu closes, the focus stays on the button.
    await page.keyboard.press("Enter");
    await menu.waitFor();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    assert.equal(await focused(), "Fees");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Fee Schedule" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/fees");
    assert.equal(await menu.isVisible(), false);
    assert.equal(await focused(), "Open menu");
    await context.close();
  });
});

describe("signed-in pages", () => {
  test("the Help Center FAQ keeps one item open at a time", async () => {
    const page = await signedIn.newPage();
    await page.goto(`${stack.baseURL}/help`);
    await page.getByRole("heading", { level: 1, name: "Help Center" }).waitFor();
    const expanded = page.locator('main button[aria-expanded="true"]');
    await page.getByRole("button", { name: "What is Thumela?" }).click();
    assert.equal(await expanded.count(), 1);
    await page.getByRole("button", { name: "How do I change my password?" }).click();
    assert.equal(await expanded.count(), 1);
    assert.equal(await page.getByRole("button", { name: "What is Thumela?" }).getAttribute("aria-expanded"), "false");
    await page.close();
  });

  test("a joined waitlist is remembered after a reload", async () => {
    const page = await signedIn.newPage();
    await page.goto(`${stack.baseURL}/beta-features`);
    await page.getByRole("button", { name: "Join Waitlist for Pay by Bank" }).click();
    await page.getByText("Waitlist joined").waitFor();
    await page.reload();
    await page.getByRole("button", { name: "Joined Waitlist for Pay by Bank" }).waitFor();
    await page.close();
  });

  test("the referral code is the user's own and stays the same", async () => {
    const page = await signedIn.newPage();
    await page.goto(`${stack.baseURL}/refer-friend`);
    const code = await page.getByTestId("referral-code").textContent();
    assert.match(code ?? "", /^THU-[0-9A-HJKMNP-TV-Z]{8}$/);
    await page.reload();
    assert.equal(await page.getByTestId("referral-code").textContent(), code);
    await page.close();
  });
});

describe("analytics", () => {
  test("events go first-party to the BFF, which accepts them; only allowed names are sent", async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    const batches = [];
    const foreign = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.origin !== new URL(stack.baseURL).origin) foreign.push(request.url());
      if (url.pathname === "/thumela.bff.v1.AnalyticsService/Track") batches.push(JSON.parse(request.postData() ?? "{}"));
    });
    const accepted = page.waitForResponse(
      (response) => response.url().endsWith("/thumela.bff.v1.AnalyticsService/Track") && response.status() === 200,
    );
    await page.goto(`${stack.baseURL}/`);
    await page.getByRole("heading", { name: "How it works" }).click();
    await accepted;
    await page.goto(`${stack.baseURL}/does-not-exist`);
    await page.getByRole("heading", { name: NOT_FOUND }).waitFor();
    await page.close({ runBeforeUnload: true });
    await new Promise((resolve) => setTimeout(resolve, 500));

    const names = batches.flatMap((batch) => batch.events.map((event) => event.name));
    assert.ok(names.includes("landing_page_viewed"), names.join(","));
    assert.ok(names.includes("$pageview"), names.join(","));
    assert.ok(names.includes("clicked_features_section"), names.join(","));
    for (const name of names) assert.ok(ALLOWED_EVENTS.has(name), `sent a name the BFF refuses: ${name}`);
    const viewed = batches.flatMap((batch) => batch.events).find((event) => event.name === "landing_page_viewed");
    assert.deepEqual(viewed.properties, { referrer: "direct", landing_page_version: "1.0" });
    assert.match(viewed.timestamp, /^\d{4}-\d\d-\d\dT/);
    assert.equal(new URL(viewed.url).pathname, "/");
    assert.match(batches[0].anonymousId, /^[A-Za-z0-9_-]{8,64}$/);
    assert.deepEqual(foreign, [], "requests left Thumela's origin");
    await context.close();
  });
});

describe("accessibility", () => {
  /** Runs axe-core in the page; returns the serious and critical violations. */
  async function seriousViolations(page) {
    await page.addScriptTag({ path: AXE_PATH });
    const results = await page.evaluate(() =>
      // eslint-disable-next-line no-undef
      axe.run(document, { resultTypes: ["violations"] }),
    );
    return results.violations
      .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  }

  for (const [path, heading, signed] of [
    ["/", "Send cash to any ATM in South Africa", false],
    ["/login", "Welcome Back", false],
    ["/signup", "Create Your Account", false],
    ["/dashboard", "Quick Actions", true],
    ["/help", "Help Center", false],
    ["/help", "Help Center", true],
    ["/send-money", "Send Money", true],
    ["/payment-methods", "Payment Methods", true],
  ]) {
    for (const scheme of ["light", "dark"]) {
      test(`axe: ${path}${signed ? ", signed in" : ""} (${scheme}) has no serious or critical violations`, async () => {
        // axe is injected as a script; the BFF's CSP rightly forbids that, so this context bypasses it.
        const context = signed ? signedIn : await chromium.browser.newContext({ bypassCSP: true });
        const page = await context.newPage();
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${stack.baseURL}${path}`);
        await page.getByRole("heading", { level: 1, name: heading }).waitFor();
        // Let lazy content and fonts settle (the live event stream keeps the network busy).
        await page.waitForTimeout(500);
        const found = await seriousViolations(page);
        assert.deepEqual(found, [], found.join("\n"));
        await page.close();
        if (!signed) await context.close();
      });
    }
  }
});
