import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { AuthService } from "@/gen/thumela/bff/v1/bff_pb";
import type { SignUpRequest } from "@/gen/thumela/bff/v1/bff_pb";
import { renderApp } from "@/test/render-app";
import { badRequestDetail, errorWithDetails } from "@/test/error-details";

async function fillSignUp(
  user: ReturnType<typeof renderApp>["user"],
  values: Partial<Record<"first" | "last" | "email" | "password" | "confirm", string>>,
) {
  if (values.first) await user.type(screen.getByLabelText("First name"), values.first);
  if (values.last) await user.type(screen.getByLabelText("Last name"), values.last);
  if (values.email) await user.type(screen.getByLabelText("Email"), values.email);
  if (values.password) await user.type(screen.getByLabelText("Password"), values.password);
  if (values.confirm) await user.type(screen.getByLabelText("Confirm password"), values.confirm);
}

const VALID = { first: "Thandi", last: "Mokoena", email: "thandi@example.co.za", password: "correct-horse", confirm: "correct-horse" };

describe("sign-up", () => {
  it("opens with the focus in the first field", async () => {
    renderApp("/signup");
    const first = await screen.findByLabelText("First name");
    await vi.waitFor(() => expect(first).toHaveFocus());
  });

  it("asks for every required field", async () => {
    const signUp = vi.fn();
    const { user } = renderApp("/signup", { routes: (r) => r.rpc(AuthService.method.signUp, signUp) });
    await screen.findByRole("heading", { name: "Create Your Account" });

    await fillSignUp(user, { first: "Thandi", password: "correct-horse", confirm: "correct-horse" });
    await user.click(screen.getByRole("button", { name: "Create Account" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("Please fill in all required fields.");
    expect(screen.getByLabelText("Last name")).toHaveAttribute("aria-invalid", "true");
    expect(signUp).not.toHaveBeenCalled();
  });

  it("refuses passwords shorter than 8 characters", async () => {
    const { user } = renderApp("/signup");
    await screen.findByRole("heading", { name: "Create Your Account" });
    await fillSignUp(user, { ...VALID, password: "short", confirm: "short" });
    await user.click(screen.getByRole("button", { name: "Create Account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Password must be at least 8 characters.");
  });

  it("refuses passwords that don't match", async () => {
    const { user } = renderApp("/signup");
    await screen.findByRole("heading", { name: "Create Your Account" });
    await fillSignUp(user, { ...VALID, confirm: "correct-horse!" });
    await user.click(screen.getByRole("button", { name: "Create Account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent(
      "Passwords don't match. Please make sure your passwords match.",
    );
  });

  it("refuses names with control or direction-changing characters before asking the server", async () => {
    const signUp = vi.fn();
    const { user } = renderApp("/signup", { routes: (r) => r.rpc(AuthService.method.signUp, signUp) });
    await screen.findByRole("heading", { name: "Create Your Account" });
    // U+202E (right-to-left override) would make the name read backwards in a recipient's SMS.
    await fillSignUp(user, { ...VALID, last: "\u202eaneokoM" });
    await user.click(screen.getByRole("button", { name: "Create Account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent(
      "Names may only contain letters, spaces, apostrophes, hyphens and full stops.",
    );
    expect(screen.getByLabelText("Last name")).toHaveAttribute("aria-invalid", "true");
    expect(signUp).not.toHaveBeenCalled();
  });

  it.each([
    ["first", "Visit fnb-secure.co.za", "Names can't contain a web address.", "First name"],
    ["last", "www.fnb-help.co.za", "Names can't contain a web address.", "Last name"],
    ["first", "--", "First name must include at least one letter.", "First name"],
  ] as const)("refuses the %s name %j before asking the server: %j", async (which, name, message, label) => {
    const signUp = vi.fn();
    const { user } = renderApp("/signup", { routes: (r) => r.rpc(AuthService.method.signUp, signUp) });
    await screen.findByRole("heading", { name: "Create Your Account" });
    // The first name is the sender's name in the recipient's voucher SMS: an address there is a lure.
    await fillSignUp(user, { ...VALID, [which]: name });
    await user.click(screen.getByRole("button", { name: "Create Account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent(message);
    expect(screen.getByLabelText(label)).toHaveAttribute("aria-invalid", "true");
    expect(signUp).not.toHaveBeenCalled();
  });

  it("accepts initials, with or without spaces", async () => {
    const signUp = vi.fn((request: SignUpRequest) => ({ email: request.email }));
    const { user } = renderApp("/signup", { routes: (r) => r.rpc(AuthService.method.signUp, signUp) });
    await screen.findByRole("heading", { name: "Create Your Account" });
    await fillSignUp(user, { ...VALID, first: "J.R.R. St. John", last: "Tolkien" });
    await user.click(screen.getByRole("button", { name: "Create Account" }));
    expect(await screen.findByRole("heading", { name: "Verify Your Identity" })).toBeInTheDocument();
    expect(signUp).toHaveBeenCalledOnce();
  });

  it("accepts the names people have", async () => {
    const signUp = vi.fn((request: SignUpRequest) => ({ email: request.email }));
    const { user } = renderApp("/signup", { routes: (r) => r.rpc(AuthService.method.signUp, signUp) });
    await screen.findByRole("heading", { name: "Create Your Account" });
    await fillSignUp(user, { ...VALID, first: "Mary-Jane", last: "O'Brien-Ndlovu Jr." });
    await user.click(screen.getByRole("button", { name: "Create Account" }));
    expect(await screen.findByRole("heading", { name: "Verify Your Identity" })).toBeInTheDocument();
    expect(signUp).toHaveBeenCalledOnce();
  });

  it("goes to verification with the e-mail, in words that do not say whether the account is new", async () => {
    let received: SignUpRequest | undefined;
    const { user, router } = renderApp("/signup", {
      routes: (r) =>
        r.rpc(AuthService.method.signUp, (request) => {
          received = request;
          return { email: request.email, resendAvailableAt: timestampFromMs(Date.now() + 45_000) };
        }),
    });
    await screen.findByRole("heading", { name: "Create Your Account" });
    await fillSignUp(user, VALID);
    await user.click(screen.getByRole("button", { name: "Create Account" }));

    expect(await screen.findByRole("heading", { name: "Verify Your Identity" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/otp-verification");
    expect(screen.getByText("thandi@example.co.za")).toBeInTheDocument();
    expect(screen.getByText("00:45")).toBeInTheDocument();
    expect(received).toMatchObject({ firstName: "Thandi", lastName: "Mokoena", email: "thandi@example.co.za" });

    // The server answers an address that already has an account the same way (and e-mails its
    // owner), so nothing here may claim an account was made.
    const toast = await screen.findByText("Check your email");
    expect(within(toast.closest("li")!).getByText(
      "We've sent a 6-digit code to thandi@example.co.za. Enter it to finish creating your account.",
    )).toBeInTheDocument();
    expect(screen.queryByText(/account (has been )?created|already exists/i)).not.toBeInTheDocument();
    // A reload of the verification page still knows the e-mail.
    expect(window.sessionStorage.getItem("thumela.pendingVerification")).toContain("thandi@example.co.za");
  });

  it("shows the server's reason when registration fails", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { user } = renderApp("/signup", {
      routes: (r) =>
        r.rpc(AuthService.method.signUp, () => {
          throw new ConnectError("Password is too common.", Code.InvalidArgument);
        }),
    });
    await screen.findByRole("heading", { name: "Create Your Account" });
    await fillSignUp(user, VALID);
    await user.click(screen.getByRole("button", { name: "Create Account" }));

    expect(await screen.findByText("Registration failed")).toBeInTheDocument();
    expect(await screen.findByRole("alert")).toHaveTextContent("Password is too common.");
  });

  it("marks and focuses the field the server refused (a common password)", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const common = "This password is too common. Please choose one that is harder to guess.";
    const { user } = renderApp("/signup", {
      routes: (r) =>
        r.rpc(AuthService.method.signUp, () => {
          throw errorWithDetails(common, Code.InvalidArgument, badRequestDetail([{ field: "password", description: common }]));
        }),
    });
    await screen.findByRole("heading", { name: "Create Your Account" });
    await fillSignUp(user, VALID);
    await user.click(screen.getByRole("button", { name: "Create Account" }));

    expect(await screen.findByRole("alert")).toHaveTextContent(common);
    const password = screen.getByLabelText("Password");
    expect(password).toHaveAttribute("aria-invalid", "true");
    expect(password).toHaveFocus();
    expect(screen.getByLabelText("Email")).not.toHaveAttribute("aria-invalid");
  });

  it("carries a friend's referral code from /signup?ref= and tells of the credit", async () => {
    const requests: SignUpRequest[] = [];
    const { user } = renderApp("/signup?ref=%20thu-ab12cd34%20", {
      routes: (r) =>
        r.rpc(AuthService.method.signUp, (request) => {
          requests.push(request);
          return { email: request.email };
        }),
    });
    await screen.findByRole("heading", { name: "Create Your Account" });
    expect(screen.getByRole("note", { name: "Invitation" })).toHaveTextContent(
      "A friend invited you to Thumela (code THU-AB12CD34). You get R50,00 transfer credit once you verify your email address. It pays the fees of your transfers.",
    );
    await fillSignUp(user, VALID);
    await user.click(screen.getByRole("button", { name: "Create Account" }));
    await screen.findByRole("heading", { name: "Verify Your Identity" });
    expect(requests[0].referralCode).toBe("THU-AB12CD34");
  });

  it("signs up without a code that cannot be one, and says so", async () => {
    const requests: SignUpRequest[] = [];
    const { user } = renderApp("/signup?ref=nonsense", {
      routes: (r) =>
        r.rpc(AuthService.method.signUp, (request) => {
          requests.push(request);
          return { email: request.email };
        }),
    });
    await screen.findByRole("heading", { name: "Create Your Account" });
    expect(screen.getByText(/The invitation link's referral code isn't valid/)).toBeInTheDocument();
    await fillSignUp(user, VALID);
    await user.click(screen.getByRole("button", { name: "Create Account" }));
    await screen.findByRole("heading", { name: "Verify Your Identity" });
    expect(requests[0].referralCode).toBe("");
  });

  it("sends no code without a link", async () => {
    const requests: SignUpRequest[] = [];
    const { user } = renderApp("/signup", {
      routes: (r) =>
        r.rpc(AuthService.method.signUp, (request) => {
          requests.push(request);
          return { email: request.email };
        }),
    });
    await screen.findByRole("heading", { name: "Create Your Account" });
    expect(screen.queryByRole("note")).not.toBeInTheDocument();
    await fillSignUp(user, VALID);
    await user.click(screen.getByRole("button", { name: "Create Account" }));
    await screen.findByRole("heading", { name: "Verify Your Identity" });
    expect(requests[0].referralCode).toBe("");
  });
});
