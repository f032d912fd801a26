import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { AuthService, SupportMessageKind, SupportService, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { SubmitSupportMessageRequest } from "@/gen/thumela/bff/v1/bff_pb";
import { policyFigures } from "@/lib/limit-policy";
import { badRequestDetail, errorWithDetails, retryInfoDetail } from "@/test/error-details";
import { SIGNED_IN, TEST_LIMIT_POLICY, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";
import { HELP_FAQ } from "../content/faq";

const SLOW = { timeout: 10_000 };

async function openHelp(path = "/help", routes?: (router: ConnectRouter) => void) {
  const app = renderApp(path, { session: SIGNED_IN, routes });
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

  it("FAQ: the limits answer quotes the server's figures (GetLimitPolicy)", async () => {
    const { user } = await openHelp();
    await user.click(screen.getByRole("button", { name: "How much can I send?" }));
    const answer = screen.getByRole("region", { name: "How much can I send?" });
    const limits = policyFigures(TEST_LIMIT_POLICY);
    await waitFor(() => expect(answer.querySelector("[data-limit-loading]")).toBeNull());
    for (const value of [limits.minimum, limits.perTransfer, limits.perDay, limits.perMonth, limits.perYear]) {
      expect(value).toBeDefined();
      expect(answer.textContent).toContain(value);
    }
    // R3 000,00 is the production default: the page must not carry its own copy.
    expect(answer.textContent).not.toMatch(/R3.000,00/);
  });

  it("FAQ: the limits answer says so while the figures load, and never guesses when they fail", async () => {
    const { user } = await openHelp("/help", (router) => {
      router.rpc(TransfersService.method.getLimitPolicy, () => {
        throw new ConnectError("down", Code.Unavailable);
      });
    });
    await user.click(screen.getByRole("button", { name: "How much can I send?" }));
    const answer = screen.getByRole("region", { name: "How much can I send?" });
    await waitFor(() => expect(answer.textContent).toContain("the current limit"), SLOW);
    expect(answer.querySelector("[data-limit]")).toBeNull();
  });

  it("Contact Us: Question by default; refuses a missing subject or message with the spec's text", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const { user } = await openHelp("/help?tab=contact");
    expect(screen.getByRole("radio", { name: "Question" })).toBeChecked();
    expect(screen.getByRole("radio", { name: "Report Issue" })).not.toBeChecked();

    await user.type(screen.getByLabelText("Subject"), "Voucher not received");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    await expectToast("Missing information", "Please fill in all required fields.");
    expect(screen.getByLabelText("Message")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("Subject")).not.toHaveAttribute("aria-invalid");
    expect(screen.queryByText("Feedback submitted")).not.toBeInTheDocument();
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("Contact Us: a missing field is said once, by the toast; the empty fields are marked and the first takes the focus", async () => {
    const { user } = await openHelp("/help?tab=contact");
    const subject = screen.getByLabelText("Subject");
    const message = screen.getByLabelText("Message");
    const missingToasts = () =>
      screen.queryAllByRole("listitem").filter((item) => item.hasAttribute("data-sonner-toast") && item.textContent?.includes("Missing information"));

    await user.click(screen.getByRole("button", { name: "Submit" }));
    const toast = await expectToast("Missing information", "Please fill in all required fields.");
    // Screen readers hear it from the toaster's live region (no second, page-level alert).
    expect(toast.closest("[aria-live]")).toHaveAttribute("aria-live", "polite");
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(screen.getAllByText(/Please fill in all required fields/)).toHaveLength(1);
    expect(missingToasts()).toHaveLength(1);
    expect(subject).toHaveAttribute("aria-invalid", "true");
    expect(message).toHaveAttribute("aria-invalid", "true");
    expect(subject).toHaveFocus();
    expect(subject).not.toHaveAccessibleDescription();

    // Pressed again: still one toast; with the subject typed, the message is the first empty field.
    await user.type(subject, "Voucher not received");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    await waitFor(() => expect(message).toHaveFocus());
    expect(subject).not.toHaveAttribute("aria-invalid");
    expect(message).toHaveAttribute("aria-invalid", "true");
    expect(missingToasts()).toHaveLength(1);
    expect(screen.getAllByText(/Please fill in all required fields/)).toHaveLength(1);
  });

  it("Contact Us: a complete form goes to the support inbox; 'Feedback submitted' quotes the ticket and the form clears", async () => {
    const asked: SubmitSupportMessageRequest[] = [];
    let answer!: () => void;
    const { user } = await openHelp("/help?tab=contact", (r) =>
      r.rpc(SupportService.method.submitSupportMessage, async (request) => {
        asked.push(request);
        await new Promise<void>((resolve) => (answer = resolve));
        return { ticket: "THM-7Q4K2M" };
      }),
    );
    await user.click(screen.getByRole("radio", { name: "Report Issue" }));
    expect(screen.getByRole("radio", { name: "Report Issue" })).toBeChecked();
    await user.type(screen.getByLabelText("Subject"), "Voucher not received");
    await user.type(screen.getByLabelText("Message"), "My sister did not get the SMS.");
    await user.keyboard("{Tab}{Enter}"); // by keyboard: Tab to Submit, Enter

    // Busy while the server answers: one message, however often the button is pressed.
    const busy = await screen.findByRole("button", { name: "Sending..." });
    expect(busy).toHaveAttribute("aria-disabled", "true");
    await user.keyboard("{Enter}"); // pressed again while busy: nothing more is sent
    answer();

    await expectToast("Feedback submitted", "Thank you for your feedback! We'll get back to you soon. Your reference is THM-7Q4K2M.");
    expect(screen.getByRole("status")).toHaveTextContent("Your message was sent. Your reference is THM-7Q4K2M.");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      kind: SupportMessageKind.ISSUE,
      subject: "Voucher not received",
      message: "My sister did not get the SMS.",
      name: "",
      email: "",
    });
    expect(screen.getByLabelText("Subject")).toHaveValue("");
    expect(screen.getByRole("radio", { name: "Question" })).toBeChecked();
  });

  it("Contact Us: too many messages from the connection says when to try again and keeps the text", async () => {
    const { user } = await openHelp("/help?tab=contact", (r) =>
      r.rpc(SupportService.method.submitSupportMessage, () => {
        throw errorWithDetails("You have sent too many messages. Please try again later.", Code.ResourceExhausted, retryInfoDetail(7 * 60 - 5));
      }),
    );
    await user.type(screen.getByLabelText("Subject"), "Voucher not received");
    await user.type(screen.getByLabelText("Message"), "My sister did not get the SMS.");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    await expectToast("Message not sent", "Too many messages from your connection. Please try again in 7 minutes.");
    expect(screen.getByLabelText("Subject")).toHaveValue("Voucher not received");
    expect(screen.queryByText("Feedback submitted")).not.toBeInTheDocument();
  });

  it("Contact Us: a signed-in sender's own budget spent is called the account's, as the service says", async () => {
    const { user } = await openHelp("/help?tab=contact", (r) =>
      r.rpc(SupportService.method.submitSupportMessage, () => {
        throw errorWithDetails(
          "Too many messages from your account. Please try again in 3 minutes.",
          Code.ResourceExhausted,
          retryInfoDetail(3 * 60 - 5),
        );
      }),
    );
    await user.type(screen.getByLabelText("Subject"), "Voucher not received");
    await user.type(screen.getByLabelText("Message"), "My sister did not get the SMS.");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    await expectToast("Message not sent", "Too many messages from your account. Please try again in 3 minutes.");
    expect(screen.queryByText(/from your connection/)).not.toBeInTheDocument();
  });

  it("Contact Us: a network failure says so, and the server's field errors show under their field", async () => {
    let calls = 0;
    const { user } = await openHelp("/help?tab=contact", (r) =>
      r.rpc(SupportService.method.submitSupportMessage, () => {
        calls += 1;
        if (calls === 1) throw new ConnectError("fetch failed", Code.Unavailable);
        throw errorWithDetails(
          "invalid request",
          Code.InvalidArgument,
          badRequestDetail([{ field: "message", description: "Message contains characters that cannot be sent." }]),
        );
      }),
    );
    await user.type(screen.getByLabelText("Subject"), "Hello");
    await user.type(screen.getByLabelText("Message"), "Hi there");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    await expectToast("Message not sent", "We could not send your message. Please check your connection and try again.");

    await user.click(screen.getByRole("button", { name: "Submit" }));
    await expectToast("Message not sent", "Message contains characters that cannot be sent.");
    expect(screen.getByLabelText("Message")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("Message")).toHaveAccessibleDescription("Message contains characters that cannot be sent.");
  });

  it("Contact Us: says where the reply goes, and asks a signed-in sender for no address", async () => {
    await openHelp("/help?tab=contact");
    expect(await screen.findByText("We'll reply to thandi@example.co.za.")).toBeInTheDocument();
    expect(screen.queryByLabelText("Your email (so we can reply)")).not.toBeInTheDocument();
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

describe("Help Center for a visitor (help is public)", () => {
  it("opens signed out, in the public shell, without a detour to log in", async () => {
    const { router } = renderApp("/help");
    expect(await screen.findByRole("heading", { level: 1, name: "Help Center" }, SLOW)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/help");
    const header = screen.getByRole("banner");
    expect(within(header).getByRole("link", { name: "Log In" })).toHaveAttribute("href", "/login");
    expect(within(screen.getByRole("contentinfo")).getByRole("link", { name: "Help Center" })).toHaveAttribute("href", "/help");
    expect(screen.queryByRole("navigation", { name: "Main navigation" })).not.toBeInTheDocument();
    expect(screen.getAllByRole("tab").map((tab) => tab.textContent)).toEqual(["FAQ", "Contact Us", "Documents"]);
  });

  it("opens in the app's frame, with the sidebar, when signed in", async () => {
    await openHelp();
    const nav = screen.getByRole("navigation", { name: "Main navigation" });
    expect(within(nav).getByRole("link", { name: "Help Center" })).toHaveAttribute("aria-current", "page");
    expect(screen.queryByRole("link", { name: "Get Started" })).not.toBeInTheDocument();
  });

  it("still opens, publicly, when the session cannot be read", async () => {
    // The browser says a session was set here, so the session is asked for, and it fails.
    renderApp("/help", {
      signedInHint: true,
      routes: (r) =>
        r.rpc(AuthService.method.getSession, () => {
          throw new ConnectError("unavailable", Code.Unavailable);
        }),
    });
    expect(await screen.findByRole("heading", { level: 1, name: "Help Center" }, SLOW)).toBeInTheDocument();
    // The hint says a session was set here and nothing said it ended (only Unauthenticated
    // clears it): the public header offers the way back to the dashboard, not Log In.
    const header = within(screen.getByRole("banner"));
    expect(header.getByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(header.queryByRole("link", { name: "Log In" })).not.toBeInTheDocument();
  });

  it("Contact Us: a visitor gives an e-mail address for the reply, and the message goes with it", async () => {
    const asked: SubmitSupportMessageRequest[] = [];
    const { user } = renderApp("/help?tab=contact", {
      routes: (r) =>
        r.rpc(SupportService.method.submitSupportMessage, (request) => {
          asked.push(request);
          return { ticket: "THM-VIS1TR" };
        }),
    });
    const email = await screen.findByLabelText("Your email (so we can reply)", undefined, SLOW);
    expect(email).toHaveAttribute("type", "email");
    await user.type(screen.getByLabelText("Subject"), "Which cards work?");
    await user.type(screen.getByLabelText("Message"), "Can I pay with a Mastercard debit card?");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(await screen.findByText("Please enter your email address.")).toBeInTheDocument();
    expect(email).toHaveAttribute("aria-invalid", "true");
    expect(email).toHaveAccessibleDescription("Please enter your email address.");
    expect(email).toHaveFocus();
    // Subject and message are there: not the spec's 'Missing information'.
    expect(screen.queryByText("Missing information")).not.toBeInTheDocument();
    expect(asked).toHaveLength(0);

    await user.type(email, "lerato@example.co.za");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    await expectToast("Feedback submitted", "Your reference is THM-VIS1TR.");
    expect(asked[0]).toMatchObject({
      kind: SupportMessageKind.QUESTION,
      email: "lerato@example.co.za",
      subject: "Which cards work?",
      message: "Can I pay with a Mastercard debit card?",
    });
  });
});
