import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { renderApp } from "@/test/render-app";
import { PUBLIC_FAQ } from "../content/faq";

const SLOW = { timeout: 10_000 };

describe("public contact page", () => {
  it("checks every field, then thanks the visitor without any call", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const { user } = renderApp("/contact");
    await screen.findByRole("heading", { level: 1, name: "Contact" }, SLOW);
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    expect(await screen.findByText("Please enter your full name.")).toBeInTheDocument();
    expect(screen.getByText("Please enter your email address.")).toBeInTheDocument();
    expect(screen.getByText("Please enter a subject.")).toBeInTheDocument();
    expect(screen.getByText("Please write a message of at least 10 characters.")).toBeInTheDocument();
    expect(screen.getByLabelText("Full name")).toHaveAttribute("aria-invalid", "true");

    await user.type(screen.getByLabelText("Full name"), "Thandi Mokoena");
    await user.type(screen.getByLabelText("Email"), "thandi@");
    await user.type(screen.getByLabelText("Subject"), "Refund");
    await user.type(screen.getByLabelText("Message"), "When will my refund arrive?");
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    expect(await screen.findByText("Please enter a valid email address.")).toBeInTheDocument();

    await user.clear(screen.getByLabelText("Email"));
    await user.type(screen.getByLabelText("Email"), "thandi@example.co.za");
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    expect(await screen.findByText("Message sent")).toBeInTheDocument();
    expect(screen.getByLabelText("Full name")).toHaveValue("");
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});

describe("public feedback page", () => {
  it("needs a rating, a purpose and a recommendation; then shows 'Feedback submitted'", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const { user } = renderApp("/feedback");
    await screen.findByRole("heading", { level: 1, name: "Feedback" }, SLOW);
    await user.click(screen.getByRole("button", { name: "Submit Feedback" }));
    expect(await screen.findByText("Please choose a rating from 1 to 5.")).toBeInTheDocument();
    expect(screen.getByText("Please tell us what you used Thumela for.")).toBeInTheDocument();
    expect(screen.getByText("Please tell us whether you would recommend Thumela.")).toBeInTheDocument();

    await user.click(screen.getByRole("radio", { name: /^4 out of 5/ }));
    await user.selectOptions(screen.getByLabelText("What did you use Thumela for?"), "Sending money to family or friends");
    await user.type(screen.getByLabelText("What did you like?"), "Quick and easy.");
    await user.type(screen.getByLabelText("What could we improve?"), "More banks.");
    await user.click(screen.getByRole("radio", { name: "Maybe" }));
    await user.click(screen.getByRole("button", { name: "Submit Feedback" }));

    expect(await screen.findByText("Feedback submitted")).toBeInTheDocument();
    expect(screen.getByText("Thank you for your feedback! We'll get back to you soon.")).toBeInTheDocument();
    expect(screen.getByLabelText("What did you like?")).toHaveValue("");
    expect(screen.getByRole("radio", { name: "Maybe" })).not.toBeChecked();
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});

describe("public FAQ page", () => {
  it("has five groups and keeps one answer open at a time", async () => {
    const { user } = renderApp("/faq");
    await screen.findByRole("heading", { level: 1, name: "FAQ" }, SLOW);
    expect(PUBLIC_FAQ).toHaveLength(5);
    for (const group of PUBLIC_FAQ) expect(screen.getByRole("heading", { level: 2, name: group.title })).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "How do I sign up?" }));
    await user.click(screen.getByRole("button", { name: "Can I cancel a transfer?" }));
    expect(screen.getAllByRole("button", { expanded: true }).map((button) => button.textContent)).toEqual([
      "Can I cancel a transfer?",
    ]);
    const support = within(screen.getByRole("main")).getByRole("link", { name: "Get support" });
    expect(support).toHaveAttribute("href", "/support");
  });
});

describe("support page", () => {
  it("gives the spec's hours", async () => {
    renderApp("/support");
    await screen.findByRole("heading", { level: 1, name: "Support" }, SLOW);
    expect(screen.getByText("24/7 support")).toBeInTheDocument();
    expect(screen.getByText(/Monday to Friday 8:00-18:00, Saturday 9:00-14:00/)).toBeInTheDocument();
  });
});
