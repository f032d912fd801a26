import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { LIMITS } from "@/lib/limits";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { HELP_FAQ } from "../content/faq";

const SLOW = { timeout: 10_000 };

async function openHelp(path = "/help") {
  const app = renderApp(path, { session: SIGNED_IN });
  await screen.findByRole("heading", { level: 1, name: "Help Center" }, SLOW);
  return app;
}

describe("Help Center", () => {
  it("has the FAQ, Contact Us and Documents tabs, FAQ first", async () => {
    await openHelp();
    const tabs = screen.getAllByRole("tab");
    expect(tabs.map((tab) => tab.textContent)).toEqual(["FAQ", "Contact Us", "Documents"]);
    expect(tabs[0]).toHaveAttribute("aria-selected", "true");
  });

  it("FAQ: four groups of three questions", async () => {
    await openHelp();
    expect(HELP_FAQ.map((group) => group.title)).toEqual(["General", "Transfers", "Payment Methods", "Account"]);
    for (const group of HELP_FAQ) {
      const section = screen.getByRole("region", { name: group.title });
      expect(within(section).getAllByRole("button")).toHaveLength(3);
    }
  });

  it("FAQ: one answer open at a time across the whole FAQ", async () => {
    const { user } = await openHelp();
    const first = screen.getByRole("button", { name: "What is Thumela?" });
    const other = screen.getByRole("button", { name: "How do I change my password?" });
    const openItems = () => screen.getAllByRole("button", { expanded: true });

    await user.click(first);
    expect(first).toHaveAttribute("aria-expanded", "true");
    expect(openItems()).toHaveLength(1);

    await user.click(other); // in another group
    expect(other).toHaveAttribute("aria-expanded", "true");
    expect(first).toHaveAttribute("aria-expanded", "false");
    expect(openItems()).toHaveLength(1);

    await user.click(other);
    expect(screen.queryAllByRole("button", { expanded: true })).toHaveLength(0);
  });

  it("FAQ: the limits answer quotes lib/limits.ts", async () => {
    const { user } = await openHelp();
    await user.click(screen.getByRole("button", { name: "How much can I send?" }));
    const answer = screen.getByRole("region", { name: "How much can I send?" });
    for (const value of [LIMITS.minimum, LIMITS.perTransfer, LIMITS.perDay, LIMITS.perMonth, LIMITS.perYear]) {
      expect(answer.textContent).toContain(value);
    }
  });

  it("Contact Us: Question by default; refuses a missing subject or message with the spec's text", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const { user } = await openHelp("/help?tab=contact");
    expect(screen.getByRole("radio", { name: "Question" })).toBeChecked();
    expect(screen.getByRole("radio", { name: "Report Issue" })).not.toBeChecked();

    await user.type(screen.getByLabelText("Subject"), "Voucher not received");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(await screen.findByText("Missing information: Please fill in all required fields.")).toBeInTheDocument();
    expect(screen.getByText("Missing information")).toBeInTheDocument(); // the toast
    expect(screen.getByLabelText("Message")).toHaveAttribute("aria-invalid", "true");
    expect(screen.queryByText("Feedback submitted")).not.toBeInTheDocument();
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("Contact Us: a complete form shows 'Feedback submitted' and clears, without any call", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const { user } = await openHelp("/help?tab=contact");
    await user.click(screen.getByRole("radio", { name: "Report Issue" }));
    expect(screen.getByRole("radio", { name: "Report Issue" })).toBeChecked();
    await user.type(screen.getByLabelText("Subject"), "Voucher not received");
    await user.type(screen.getByLabelText("Message"), "My sister did not get the SMS.");
    await user.click(screen.getByRole("button", { name: "Submit" }));

    expect(await screen.findByText("Feedback submitted")).toBeInTheDocument();
    expect(screen.getByText("Thank you for your feedback! We'll get back to you soon.")).toBeInTheDocument();
    expect(screen.getByLabelText("Subject")).toHaveValue("");
    expect(screen.getByRole("radio", { name: "Question" })).toBeChecked();
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("Documents: four documents, last updated April 1, 2025, each opening its real page", async () => {
    const { user, router } = await openHelp();
    await user.click(screen.getByRole("tab", { name: "Documents" }));
    expect(router.state.location.search).toBe("?tab=documents");
    const expected = [
      ["Terms of Service", "/terms"],
      ["Privacy Policy", "/privacy"],
      ["Fee Schedule", "/fees"],
      ["FICA Requirements", "/compliance#documents"],
    ];
    for (const [title, href] of expected) {
      expect(screen.getByRole("heading", { name: title })).toBeInTheDocument();
      expect(screen.getByRole("link", { name: `View ${title}` })).toHaveAttribute("href", href);
    }
    expect(screen.getAllByText("Last updated: April 1, 2025")).toHaveLength(4);

    await user.click(screen.getByRole("link", { name: "View Fee Schedule" }));
    expect(await screen.findByRole("heading", { level: 1, name: "Fee Schedule" }, SLOW)).toBeInTheDocument();
  });
});
