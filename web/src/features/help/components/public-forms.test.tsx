import { Code } from "@connectrpc/connect";
import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { SupportMessageKind, SupportService } from "@/gen/thumela/bff/v1/bff_pb";
import type { SubmitSupportMessageRequest } from "@/gen/thumela/bff/v1/bff_pb";
import { badRequestDetail, errorWithDetails, retryInfoDetail } from "@/test/error-details";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";
import { PUBLIC_FAQ } from "../content/faq";

const SLOW = { timeout: 10_000 };

describe("public contact page", () => {
  it("checks every field, then sends the message and quotes the ticket", async () => {
    const asked: SubmitSupportMessageRequest[] = [];
    const { user } = renderApp("/contact", {
      routes: (r) =>
        r.rpc(SupportService.method.submitSupportMessage, (request) => {
          asked.push(request);
          return { ticket: "THM-7Q4K2M" };
        }),
    });
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
    expect(asked).toHaveLength(0);

    await user.clear(screen.getByLabelText("Email"));
    await user.type(screen.getByLabelText("Email"), "thandi@example.co.za");
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    await expectToast("Message sent", "Thank you for contacting us. We'll get back to you soon. Your reference is THM-7Q4K2M.");
    expect(screen.getByText(/Your message was sent\. Your reference is/)).toHaveTextContent("Your reference is THM-7Q4K2M.");
    expect(asked).toEqual([
      expect.objectContaining({
        kind: SupportMessageKind.CONTACT,
        name: "Thandi Mokoena",
        email: "thandi@example.co.za",
        subject: "Refund",
        message: "When will my refund arrive?",
      }),
    ]);
    expect(screen.getByLabelText("Full name")).toHaveValue("");
  });

  it("marks the fields the server refused and keeps what was typed", async () => {
    const { user } = renderApp("/contact", {
      routes: (r) =>
        r.rpc(SupportService.method.submitSupportMessage, () => {
          throw errorWithDetails("invalid request", Code.InvalidArgument, badRequestDetail([{ field: "email", description: "Please enter a valid e-mail address." }]));
        }),
    });
    await screen.findByRole("heading", { level: 1, name: "Contact" }, SLOW);
    await user.type(screen.getByLabelText("Full name"), "Thandi Mokoena");
    await user.type(screen.getByLabelText("Email"), "thandi@example.invalid");
    await user.type(screen.getByLabelText("Subject"), "Refund");
    await user.type(screen.getByLabelText("Message"), "When will my refund arrive?");
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    await expectToast("Message not sent", "Please enter a valid e-mail address.");
    expect(screen.getByLabelText("Email")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("Email")).toHaveValue("thandi@example.invalid");
  });
});

describe("public feedback page", () => {
  async function fillFeedback(user: ReturnType<typeof renderApp>["user"]) {
    await user.click(screen.getByRole("radio", { name: /^4 out of 5/ }));
    await user.selectOptions(screen.getByLabelText("What did you use Thumela for?"), "Sending money to family or friends");
    await user.type(screen.getByLabelText("What did you like?"), "Quick and easy.");
    await user.type(screen.getByLabelText("What could we improve?"), "More banks.");
    await user.click(screen.getByRole("radio", { name: "Maybe" }));
  }

  it("needs a rating, a purpose, a recommendation and a visitor's e-mail; then shows 'Feedback submitted' with the ticket", async () => {
    const asked: SubmitSupportMessageRequest[] = [];
    const { user } = renderApp("/feedback", {
      routes: (r) =>
        r.rpc(SupportService.method.submitSupportMessage, (request) => {
          asked.push(request);
          return { ticket: "THM-AB12CD" };
        }),
    });
    await screen.findByRole("heading", { level: 1, name: "Feedback" }, SLOW);
    await screen.findByLabelText("Your email (so we can reply)");
    await user.click(screen.getByRole("button", { name: "Submit Feedback" }));
    expect(await screen.findByText("Please choose a rating from 1 to 5.")).toBeInTheDocument();
    expect(screen.getByText("Please tell us what you used Thumela for.")).toBeInTheDocument();
    expect(screen.getByText("Please tell us whether you would recommend Thumela.")).toBeInTheDocument();
    expect(screen.getByText("Please enter your email address.")).toBeInTheDocument();

    await fillFeedback(user);
    await user.type(screen.getByLabelText("Your email (so we can reply)"), "lerato@example.co.za");
    await user.click(screen.getByRole("button", { name: "Submit Feedback" }));

    await expectToast("Feedback submitted", "Thank you for your feedback! We'll get back to you soon. Your reference is THM-AB12CD.");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ kind: SupportMessageKind.FEEDBACK, email: "lerato@example.co.za", message: "" });
    expect(asked[0]!.details).toEqual({
      rating: "4",
      purpose: "Sending money to family or friends",
      likes: "Quick and easy.",
      improvements: "More banks.",
      recommend: "maybe",
    });
    expect(screen.getByLabelText("What did you like?")).toHaveValue("");
    expect(screen.getByRole("radio", { name: "Maybe" })).not.toBeChecked();
  });

  it("a signed-in sender is answered at the account's address", async () => {
    const asked: SubmitSupportMessageRequest[] = [];
    const { user } = renderApp("/feedback", {
      session: SIGNED_IN,
      routes: (r) =>
        r.rpc(SupportService.method.submitSupportMessage, (request) => {
          asked.push(request);
          return { ticket: "THM-AB12CD" };
        }),
    });
    await screen.findByText("We'll reply to thandi@example.co.za.", undefined, SLOW);
    expect(screen.queryByLabelText("Your email (so we can reply)")).not.toBeInTheDocument();
    await fillFeedback(user);
    await user.click(screen.getByRole("button", { name: "Submit Feedback" }));
    await expectToast("Feedback submitted");
    expect(asked[0]).toMatchObject({ kind: SupportMessageKind.FEEDBACK, email: "" });
  });

  it("too many messages says when to try again", async () => {
    const { user } = renderApp("/feedback", {
      session: SIGNED_IN,
      routes: (r) =>
        r.rpc(SupportService.method.submitSupportMessage, () => {
          throw errorWithDetails("slow down", Code.ResourceExhausted, retryInfoDetail(30));
        }),
    });
    await screen.findByText("We'll reply to thandi@example.co.za.", undefined, SLOW);
    await fillFeedback(user);
    await user.click(screen.getByRole("button", { name: "Submit Feedback" }));
    await expectToast("Message not sent", "Too many messages from your connection. Please try again in 1 minute.");
    expect(screen.getByLabelText("What did you like?")).toHaveValue("Quick and easy.");
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
