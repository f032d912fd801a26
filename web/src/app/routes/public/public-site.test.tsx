import { act, screen, waitFor, within } from "@testing-library/react";
import type { RouteObject } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FOOTER_PATHS } from "@/components/layout/footer-links";
import { ARTICLES } from "@/features/blog/content/articles";
import { flushAnalytics, setAnalyticsSender } from "@/lib/analytics";
import type { AnalyticsEventInit } from "@/lib/analytics";
import { resetPageViewTracking } from "@/lib/analytics-react";
import { policyFigures } from "@/lib/limit-policy";
import { routes } from "@/app/router";
import { AuthService } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, TEST_LIMIT_POLICY, renderApp, setSessionHint } from "@/test/render-app";
import { buildSitemap } from "./sitemap";
import { STATIC_PAGES } from "./static-pages";

const SLOW = { timeout: 10_000 };
/** The figures the fake BFF answers: not the production defaults, so no copy can pass. */
const LIMITS = policyFigures(TEST_LIMIT_POLICY) as Record<string, string>;
/** Testing Library collapses the non-breaking spaces of en-ZA amounts into plain spaces. */
const text = (value: string) => value.replace(/\s/g, " ");

let events: AnalyticsEventInit[];
beforeEach(() => {
  events = [];
  resetPageViewTracking();
  setAnalyticsSender(async (_id, batch) => {
    events.push(...batch);
  });
});
afterEach(() => setAnalyticsSender(undefined));

async function sentEvents() {
  await flushAnalytics();
  return events;
}

describe("landing page analytics", () => {
  it("reports landing_page_viewed once per visit, with the referrer ('direct') and version 1.0", async () => {
    const first = renderApp("/");
    await screen.findByRole("heading", { level: 1, name: "Send cash to any ATM in South Africa" });
    first.unmount();
    renderApp("/");
    await screen.findByRole("heading", { level: 1, name: "Send cash to any ATM in South Africa" });

    const viewed = (await sentEvents()).filter((event) => event.name === "landing_page_viewed");
    expect(viewed).toHaveLength(1);
    expect(viewed[0].properties).toEqual({ referrer: "direct", landing_page_version: "1.0" });
  });

  it("reports clicked_features_section when the features section is clicked", async () => {
    const { user } = renderApp("/");
    await user.click(await screen.findByRole("heading", { name: "Add Payment Method" }));
    expect((await sentEvents()).map((event) => event.name)).toContain("clicked_features_section");
  });

  it("records a $pageview on every route change, and none when only the query changes", async () => {
    const { router } = renderApp("/");
    await screen.findByRole("heading", { level: 1, name: "Send cash to any ATM in South Africa" });
    await router.navigate("/about");
    await screen.findByRole("heading", { level: 1, name: "About" }, SLOW);
    // The same page with another query (as the send-money wizard's ?step=2 is), then back.
    await act(() => router.navigate("/about?step=2"));
    await waitFor(() => expect(router.state.location.search).toBe("?step=2"));
    await act(() => router.navigate(-1));
    await waitFor(() => expect(router.state.location.search).toBe(""));
    await act(() => router.navigate("/"));
    await screen.findByRole("heading", { level: 1, name: "Send cash to any ATM in South Africa" });
    const views = (await sentEvents()).filter((event) => event.name === "$pageview");
    expect(views.map((event) => event.properties.path)).toEqual(["/", "/about", "/"]);
  });
});

describe("public shell", () => {
  it("has the footer's link columns, bottom links, contact block and accepted marks", async () => {
    renderApp("/");
    const footer = await screen.findByRole("contentinfo");
    for (const [column, labels] of [
      ["Company", ["About", "Careers", "Press", "Blog"]],
      ["Legal", ["Privacy", "Terms", "Compliance", "Security", "Cookies"]],
      ["Help", ["Help Center", "Contact", "FAQ", "Support", "Feedback"]],
    ] as const) {
      const nav = within(footer).getByRole("navigation", { name: column });
      expect(within(nav).getAllByRole("link").map((link) => link.textContent)).toEqual(labels);
    }
    for (const label of ["Accessibility", "Sitemap", "Responsible Disclosure"]) {
      expect(within(footer).getByRole("link", { name: label })).toBeInTheDocument();
    }
    expect(within(footer).getByRole("link", { name: "support@thumela.co.za" })).toHaveAttribute("href", "mailto:support@thumela.co.za");
    expect(within(footer).getByText(/Johannesburg/)).toBeInTheDocument();
    const marks = within(footer).getByRole("list", { name: "Accepted cards and partner banks" });
    expect(within(marks).getAllByRole("listitem").map((item) => item.textContent)).toEqual([
      "Visa",
      "Mastercard",
      "Standard Bank",
      "ABSA",
      "FNB",
      "Nedbank",
      "Capitec",
    ]);
  });

  it("every footer link leads to a page of its own (no 404)", () => {
    const known = new Set([...STATIC_PAGES.map((page) => page.path), "/help"]);
    for (const path of FOOTER_PATHS) expect(known, path).toContain(path);
  });

  it("newsletter: refuses an invalid e-mail and answers a valid one politely, without any call", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const { user } = renderApp("/");
    const footer = await screen.findByRole("contentinfo");
    const box = within(footer).getByRole("textbox", { name: "Email address" });
    await user.click(within(footer).getByRole("button", { name: "Subscribe" }));
    expect(within(footer).getByText("Please enter a valid email address.")).toBeInTheDocument();
    expect(box).toHaveAttribute("aria-invalid", "true");

    await user.type(box, "thandi@example.co.za");
    await user.click(within(footer).getByRole("button", { name: "Subscribe" }));
    expect(within(footer).getByText(/Thank you!/)).toHaveTextContent("thandi@example.co.za");
    expect(box).toHaveValue("");
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("the mobile menu opens with every link, closes with Escape and on navigation", async () => {
    const { user, router } = renderApp("/");
    const button = await screen.findByRole("button", { name: "Open menu" });
    expect(button).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByRole("navigation", { name: "Mobile menu" })).not.toBeInTheDocument();

    await user.click(button);
    const menu = screen.getByRole("navigation", { name: "Mobile menu" });
    expect(button).toHaveAttribute("aria-expanded", "true");
    expect(within(menu).getByRole("link", { name: "Log In" })).toHaveAttribute("href", "/login");
    expect(within(menu).getByRole("link", { name: "Get Started" })).toHaveAttribute("href", "/signup");

    await user.keyboard("{Escape}");
    expect(screen.queryByRole("navigation", { name: "Mobile menu" })).not.toBeInTheDocument();
    expect(button).toHaveFocus();

    await user.click(button);
    await user.click(within(screen.getByRole("navigation", { name: "Mobile menu" })).getByRole("link", { name: "FAQ" }));
    await screen.findByRole("heading", { level: 1, name: "FAQ" }, SLOW);
    expect(router.state.location.pathname).toBe("/faq");
    expect(screen.queryByRole("navigation", { name: "Mobile menu" })).not.toBeInTheDocument();
  });

  it("the open mobile menu keeps the keyboard: Tab goes round the button and its links", async () => {
    const { user, router } = renderApp("/");
    const button = await screen.findByRole("button", { name: "Open menu" });
    await user.click(button);
    const menu = screen.getByRole("navigation", { name: "Mobile menu" });
    const links = within(menu).getAllByRole("link");
    expect(links.at(-1)).toHaveAccessibleName("Get Started");
    expect(button).toHaveFocus();
    expect(button).toHaveAccessibleName("Close menu");

    // Forwards through every link, then back round to the button (not on into the page).
    for (const link of links) {
      await user.tab();
      expect(link).toHaveFocus();
    }
    await user.tab();
    expect(button).toHaveFocus();
    // Backwards from the button to the last link, and from the first link to the button.
    await user.tab({ shift: true });
    expect(links.at(-1)).toHaveFocus();
    links[0].focus();
    await user.tab({ shift: true });
    expect(button).toHaveFocus();

    // Escape from inside the panel closes it and gives the focus back to the button.
    await user.tab();
    await user.tab();
    expect(links[1]).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("navigation", { name: "Mobile menu" })).not.toBeInTheDocument();
    expect(button).toHaveFocus();
    expect(button).toHaveAttribute("aria-expanded", "false");

    // Closed, Tab leaves the button for the page as usual.
    await user.tab();
    expect(button).not.toHaveFocus();
    expect(screen.getByRole("main")).toContainElement(document.activeElement as HTMLElement);

    // Choosing a link by keyboard closes the menu with the focus on the button, not the body.
    button.focus();
    await user.keyboard("{Enter}");
    expect(button).toHaveAttribute("aria-expanded", "true");
    await user.tab();
    const first = within(screen.getByRole("navigation", { name: "Mobile menu" })).getAllByRole("link")[0];
    expect(first).toHaveFocus();
    expect(first).toHaveAttribute("href", "/about");
    await user.keyboard("{Enter}");
    await screen.findByRole("heading", { level: 1, name: "About" }, SLOW);
    expect(router.state.location.pathname).toBe("/about");
    expect(screen.queryByRole("navigation", { name: "Mobile menu" })).not.toBeInTheDocument();
    expect(button).toHaveFocus();

    // A press outside the menu closes it.
    await user.click(button);
    expect(button).toHaveAttribute("aria-expanded", "true");
    await user.click(screen.getByRole("main"));
    expect(screen.queryByRole("navigation", { name: "Mobile menu" })).not.toBeInTheDocument();
  });
});

describe("public shell, signed in", () => {
  afterEach(() => setSessionHint(false));

  /** Only the signed-in hint, as the BFF leaves it: the public pages read it and ask nothing. */
  function renderSignedIn(path: string) {
    const sessionCalls = vi.fn();
    const app = renderApp(path, {
      session: SIGNED_IN,
      routes: (router) => router.rpc(AuthService.method.getSession, () => {
        sessionCalls();
        return SIGNED_IN;
      }),
    });
    return { ...app, sessionCalls };
  }

  it("shows Dashboard instead of Log In and Get Started, on the first render and without asking the server", async () => {
    const { sessionCalls } = renderSignedIn("/");
    // The heading is there on the first render: so is the header's answer.
    const header = screen.getByRole("banner");
    expect(within(header).getByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(within(header).queryByRole("link", { name: "Log In" })).not.toBeInTheDocument();
    expect(within(header).queryByRole("link", { name: "Get Started" })).not.toBeInTheDocument();
    // The landing page's calls to action follow it.
    const hero = screen.getByRole("region", { name: "Send cash to any ATM in South Africa" });
    expect(within(hero).getByRole("link", { name: "Send Money" })).toHaveAttribute("href", "/send-money");
    expect(within(hero).getByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/dashboard");
    const promo = screen.getByRole("region", { name: "First Transfer Free!" });
    expect(within(promo).getByRole("link", { name: "Send Money" })).toHaveAttribute("href", "/send-money");
    expect(screen.queryByRole("link", { name: /^(Log In|Get Started)$/ })).not.toBeInTheDocument();
    await screen.findByRole("heading", { level: 1, name: "Send cash to any ATM in South Africa" });
    expect(sessionCalls).not.toHaveBeenCalled();
  });

  it("the mobile menu ends with Dashboard, which opens the dashboard", async () => {
    const { user, router } = renderSignedIn("/faq");
    await screen.findByRole("heading", { level: 1, name: "FAQ" }, SLOW);
    await user.click(screen.getByRole("button", { name: "Open menu" }));
    const menu = screen.getByRole("navigation", { name: "Mobile menu" });
    const links = within(menu).getAllByRole("link");
    expect(links.map((link) => link.textContent)).toEqual(["About", "Fees", "Blog", "FAQ", "Support", "Dashboard"]);
    await user.click(within(menu).getByRole("link", { name: "Dashboard" }));
    await screen.findByRole("heading", { name: "Quick Actions" }, SLOW);
    expect(router.state.location.pathname).toBe("/dashboard");
  });

  it("follows a sign-out in another tab when this one is looked at again", async () => {
    renderSignedIn("/about");
    await screen.findByRole("heading", { level: 1, name: "About" }, SLOW);
    // The site's header (the page's own <header> is a banner to jsdom too).
    const header = screen.getAllByRole("banner")[0];
    expect(within(header).getByRole("link", { name: "Dashboard" })).toBeInTheDocument();
    setSessionHint(false);
    document.dispatchEvent(new Event("visibilitychange"));
    expect(await within(header).findByRole("link", { name: "Log In" })).toHaveAttribute("href", "/login");
    expect(within(header).getByRole("link", { name: "Get Started" })).toHaveAttribute("href", "/signup");
    expect(within(header).queryByRole("link", { name: "Dashboard" })).not.toBeInTheDocument();
  });
});

describe("blog", () => {
  it("lists five articles with title, excerpt, date, author and image, each linking to /blog/{id}", async () => {
    renderApp("/blog");
    await screen.findByRole("heading", { level: 1, name: "Blog" }, SLOW);
    expect(ARTICLES).toHaveLength(5);
    const items = screen.getAllByRole("article");
    expect(items).toHaveLength(5);
    for (const [index, article] of ARTICLES.entries()) {
      const item = items[index];
      expect(within(item).getByRole("link", { name: article.title })).toHaveAttribute("href", `/blog/${article.id}`);
      expect(within(item).getByText(article.excerpt)).toBeInTheDocument();
      expect(within(item).getByRole("img", { name: article.artLabel })).toBeInTheDocument();
      expect(within(item).getByText(new RegExp(article.author))).toBeInTheDocument();
      expect(item.querySelector("time")).toHaveAttribute("datetime", article.date);
    }
  });

  it("shows an article at /blog/{id}", async () => {
    renderApp("/blog/why-transfers-have-limits");
    expect(
      await screen.findByRole("heading", { level: 1, name: "Why money transfers have limits, and what ours are" }, SLOW),
    ).toBeInTheDocument();
    // The limits come from the server (GetLimitPolicy), the one source.
    await waitFor(() => expect(text(document.body.textContent ?? "")).toContain(`at most ${text(LIMITS.perTransfer)}`), SLOW);
    expect(screen.getByRole("link", { name: "All articles" })).toHaveAttribute("href", "/blog");
    // The tab names the article, not just the blog.
    await waitFor(() => expect(document.title).toBe("Why money transfers have limits, and what ours are | Thumela"));
  });

  it("answers an unknown article id with the 404 page and logs the path", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    renderApp("/blog/no-such-article");
    expect(await screen.findByRole("heading", { name: "Oops! Page not found" }, SLOW)).toBeInTheDocument();
    // The page logs from an effect, which React may run after the heading is painted.
    await waitFor(() => expect(warn).toHaveBeenCalledWith(expect.stringContaining("/blog/no-such-article")));
    await waitFor(() => expect(document.title).toBe("Page not found | Thumela"));
  });
});

describe("404", () => {
  it("logs the path to the console and sends no analytics event about it", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    renderApp("/definitely/not/here");
    expect(await screen.findByRole("heading", { name: "Oops! Page not found" }, SLOW)).toBeInTheDocument();
    // The page logs from an effect, which React may run after the heading is painted.
    await waitFor(() => expect(warn).toHaveBeenCalledWith(expect.stringContaining("/definitely/not/here")));
    const names = (await sentEvents()).map((event) => event.name);
    expect(names.filter((name) => name !== "$pageview")).toEqual([]);
  });
});

/** Every concrete path of a route table (the catch-all and parameters left out). */
function concretePaths(table: readonly RouteObject[]): string[] {
  return table.flatMap((route) => [
    ...(route.index ? ["/"] : []),
    ...(route.path && route.path !== "*" && !route.path.includes(":") ? [route.path] : []),
    ...concretePaths(route.children ?? []),
  ]);
}

describe("sitemap", () => {
  it("is generated from the router: it covers every route, and every blog article", async () => {
    const sitemapPaths = buildSitemap().flatMap((group) => group.entries.map((entry) => entry.path));
    const routePaths = concretePaths(routes);
    expect(routePaths.length).toBeGreaterThan(25);
    for (const path of routePaths) expect(sitemapPaths, path).toContain(path);
    for (const article of ARTICLES) expect(sitemapPaths).toContain(`/blog/${article.id}`);

    // A route added to the router appears without touching the sitemap.
    const extended = structuredClone(routes.map(stripFunctions));
    extended[0].children!.push({ path: "/brand-new", handle: { title: "Brand New" } });
    expect(buildSitemap(extended).flatMap((group) => group.entries)).toContainEqual({ path: "/brand-new", title: "Brand New" });
  });

  it("shows every route as a link on /sitemap", async () => {
    renderApp("/sitemap");
    await screen.findByRole("heading", { level: 1, name: "Sitemap" }, SLOW);
    const main = screen.getByRole("main");
    const hrefs = within(main)
      .getAllByRole("link")
      .map((link) => link.getAttribute("href"));
    for (const path of concretePaths(routes)) expect(hrefs, path).toContain(path);
    expect(within(main).getByRole("link", { name: "Help Center" })).toHaveAttribute("href", "/help");
    expect(within(main).getByRole("link", { name: "Fee Schedule" })).toHaveAttribute("href", "/fees");
  });
});

describe("static pages quote the one source of limits", () => {
  it("compliance shows every limit the server answers (GetLimitPolicy), and Africa/Johannesburg time", async () => {
    renderApp("/compliance");
    await screen.findByRole("heading", { level: 1, name: "Compliance" }, SLOW);
    const table = screen.getByRole("table", { name: "Transfer limits" });
    for (const value of Object.values(LIMITS)) expect(await within(table).findByText(text(value))).toBeInTheDocument();
    expect(screen.getByText(/Africa\/Johannesburg/)).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "FICA: knowing our customers" })).toBeInTheDocument();
  });

  it("the fee schedule lists every bank's fee, the platform fee and the free first transfer", async () => {
    renderApp("/fees");
    await screen.findByRole("heading", { level: 1, name: "Fee Schedule" }, SLOW);
    const table = screen.getByRole("table", { name: "Fees per bank" });
    const rows = within(table)
      .getAllByRole("row")
      .slice(1)
      .map((row) => [...row.querySelectorAll("th, td")].map((cell) => cell.textContent));
    expect(rows.map((row) => [row[0], row[1]])).toEqual([
      ["Standard Bank", "R10,95"],
      ["ABSA", "R8,50"],
      ["FNB", "R10,95"],
      ["Nedbank", "R8,50"],
      ["Capitec", "R10,00"],
    ]);
    expect(screen.getByRole("heading", { name: "Your first transfer is free" })).toBeInTheDocument();
    await waitFor(() => expect(screen.getAllByText(/0\.3%/).length).toBeGreaterThan(0));
  });

  it("the cookie policy gives the spec's durations and says the session cookie is HttpOnly and first-party", async () => {
    renderApp("/cookies");
    await screen.findByRole("heading", { level: 1, name: "Cookie Policy" }, SLOW);
    const table = screen.getByRole("table", { name: "Cookies" });
    for (const [name, duration] of [
      ["thumela_session (auth)", /30 days/],
      ["thumela_signed_in", "As long as the thumela_session cookie"],
      ["language", "1 year"],
      ["_ga", "2 years"],
      ["_gid", "24 hours"],
    ] as const) {
      const row = within(table).getByRole("rowheader", { name }).closest("tr")!;
      expect(within(row).getByText(duration)).toBeInTheDocument();
    }
    expect(within(table).getByText(/HttpOnly/)).toHaveTextContent(/first-party/);
  });
});

function stripFunctions(route: RouteObject): RouteObject {
  return {
    index: route.index,
    path: route.path,
    handle: route.handle,
    children: route.children?.map(stripFunctions),
  } as RouteObject;
}
