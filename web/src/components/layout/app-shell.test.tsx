import { act, screen, within } from "@testing-library/react";
import { toast } from "sonner";
import { describe, expect, it } from "vitest";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";

const ORDER = [
  "Dashboard",
  "Send Money",
  "Recipients",
  "Payment Methods",
  "Transaction History",
  "Account",
  "Help Center",
  "Refer a Friend",
  "BETA Features",
  "Log Out",
];

describe("signed-in shell", () => {
  it("lists the spec's items in order, then Log Out", async () => {
    renderApp("/dashboard", { session: SIGNED_IN });
    const nav = await screen.findByRole("navigation", { name: "Main navigation" });
    const links = within(nav).getAllByRole("link");
    expect(links.map((link) => link.textContent)).toEqual(ORDER);
    expect(within(nav).getByRole("link", { name: "Log Out" })).toHaveAttribute("href", "/logout");
  });

  it("marks only the item whose path equals the current path", async () => {
    renderApp("/transactions", { session: SIGNED_IN });
    const nav = await screen.findByRole("navigation", { name: "Main navigation" });
    await screen.findByRole("heading", { name: "Transaction History" });
    const current = within(nav)
      .getAllByRole("link")
      .filter((link) => link.getAttribute("aria-current") === "page");
    expect(current.map((link) => link.textContent)).toEqual(["Transaction History"]);
  });

  it("marks nothing on a path that is not an item (exact match only)", async () => {
    renderApp("/dashboard/", { session: SIGNED_IN });
    const nav = await screen.findByRole("navigation", { name: "Main navigation" });
    expect(within(nav).getAllByRole("link").some((link) => link.hasAttribute("aria-current"))).toBe(false);
  });

  it("moves the active item when navigating", async () => {
    const { user } = renderApp("/dashboard", { session: SIGNED_IN });
    const nav = await screen.findByRole("navigation", { name: "Main navigation" });
    await user.click(within(nav).getByRole("link", { name: "Payment Methods" }));
    expect(await screen.findByRole("heading", { name: "Payment Methods" })).toBeInTheDocument();
    expect(within(nav).getByRole("link", { name: "Payment Methods" })).toHaveAttribute("aria-current", "page");
    expect(within(nav).getByRole("link", { name: "Dashboard" })).not.toHaveAttribute("aria-current");
  });

  it("shows the user's name and initials in the top bar", async () => {
    renderApp("/dashboard", { session: SIGNED_IN });
    const badge = await screen.findByRole("group", { name: "Signed in as Thandi Mokoena" });
    expect(badge).toHaveTextContent("Thandi Mokoena");
    expect(badge).toHaveTextContent("TM");
  });

  // Below 640 px the name was hidden and only the initials showed. A phone's top bar has room for
  // the first name (cut short past 5rem); the full name shows from 640 px and is always the label.
  it("shows the first name on a phone and the full name from 640 px", async () => {
    renderApp("/dashboard", { session: SIGNED_IN });
    const badge = await screen.findByRole("group", { name: "Signed in as Thandi Mokoena" });
    const phone = within(badge).getByText("Thandi");
    expect(phone).not.toHaveClass("hidden");
    // At most 5rem, and less (with an ellipsis) when a narrow phone has less room left.
    expect(phone).toHaveClass("sm:hidden", "truncate", "max-w-20", "min-w-0");
    expect(phone).toHaveAttribute("title", "Thandi Mokoena");
    const wide = within(badge).getByText("Thandi Mokoena");
    expect(wide).toHaveClass("hidden", "sm:block", "truncate");
    // The badge, and the bar's end around it, give way rather than the buttons.
    expect(badge).toHaveClass("min-w-0");
    expect(badge.parentElement).toHaveClass("min-w-0");
  });

  it("falls back to the e-mail name when the profile has no names", async () => {
    renderApp("/dashboard", { session: { user: { id: "u-2", email: "sipho@example.co.za" } } });
    const badge = await screen.findByRole("group", { name: "Signed in as sipho" });
    expect(badge).toHaveTextContent("S");
  });

  it("shows toasts at the bottom right, off the top bar's theme toggle and user badge", async () => {
    renderApp("/dashboard", { session: SIGNED_IN });
    await screen.findByRole("group", { name: "Signed in as Thandi Mokoena" });
    act(() => {
      toast.success("Profile updated");
    });
    const shown = await expectToast("Profile updated");
    // Sonner's list names its corner (across the bottom on a phone; the e2e test measures it).
    const toaster = shown.closest("[data-sonner-toaster]");
    expect(toaster).toHaveAttribute("data-y-position", "bottom");
    expect(toaster).toHaveAttribute("data-x-position", "right");
  });

  it("opens the mobile menu as a dialog with the same items; Escape closes it", async () => {
    const { user } = renderApp("/dashboard", { session: SIGNED_IN });
    await user.click(await screen.findByRole("button", { name: "Open menu" }));

    const dialog = await screen.findByRole("dialog", { name: "Menu" });
    const nav = within(dialog).getByRole("navigation", { name: "Mobile navigation" });
    expect(within(nav).getAllByRole("link").map((link) => link.textContent)).toEqual(ORDER);
    expect(within(nav).getByRole("link", { name: "Dashboard" })).toHaveAttribute("aria-current", "page");
    expect(dialog).toContainElement(document.activeElement as HTMLElement);

    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog", { name: "Menu" })).not.toBeInTheDocument();
  });

  // /help is one of the sidebar's pages, but a visitor may read it too. It once had a layout route
  // of its own, so each step between it and another page mounted a new frame: the focus on the
  // link just followed fell to the page's body (and the live stream was opened again).
  it.each([
    ["/dashboard", "Help Center", "Help Center"],
    ["/help", "Dashboard", "Quick Actions"],
  ])("keeps the frame and the focus on the link from %s to %s", async (path, link, heading) => {
    const { user } = renderApp(path, { session: SIGNED_IN });
    const nav = await screen.findByRole("navigation", { name: "Main navigation" });
    const sidebar = screen.getByRole("complementary", { name: "Sidebar" });
    within(nav).getByRole("link", { name: link }).focus();
    await user.keyboard("{Enter}");
    expect(await screen.findByRole("heading", { level: 1, name: heading })).toBeInTheDocument();
    expect(screen.getByRole("complementary", { name: "Sidebar" })).toBe(sidebar);
    expect(document.activeElement).toBe(within(nav).getByRole("link", { name: link }));
  });

  it("closes the mobile menu after choosing an item", async () => {
    const { user, router } = renderApp("/dashboard", { session: SIGNED_IN });
    await user.click(await screen.findByRole("button", { name: "Open menu" }));
    const dialog = await screen.findByRole("dialog", { name: "Menu" });
    await user.click(within(dialog).getByRole("link", { name: "Help Center" }));
    expect(await screen.findByRole("heading", { name: "Help Center" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/help");
    expect(screen.queryByRole("dialog", { name: "Menu" })).not.toBeInTheDocument();
  });
});

describe("landmarks", () => {
  it("names the sidebar and the send-money Transaction Summary apart (axe landmark-unique)", async () => {
    const { default: axe } = await import("axe-core");
    renderApp("/send-money", { session: SIGNED_IN });
    await screen.findByRole("heading", { name: "Transaction Summary" });
    const asides = screen.getAllByRole("complementary");
    const names = asides.map((aside) => aside.getAttribute("aria-label") ?? document.getElementById(aside.getAttribute("aria-labelledby") ?? "")?.textContent);
    expect(names).toEqual(["Sidebar", "Transaction Summary"]);
    expect(screen.getByRole("complementary", { name: "Sidebar" })).toContainElement(screen.getByRole("navigation", { name: "Main navigation" }));
    const results = await axe.run(document.body, { runOnly: { type: "rule", values: ["landmark-unique"] } });
    expect(results.violations).toEqual([]);
  });
});
