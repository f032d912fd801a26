import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { AuthService, CodePurpose } from "@/gen/thumela/bff/v1/bff_pb";
import type { ResendCodeRequest, ResetPasswordRequest } from "@/gen/thumela/bff/v1/bff_pb";
import { renderApp } from "@/test/render-app";
import { expectNoToast, expectToast } from "@/test/toasts";

const NEUTRAL = "If an account exists for that email, we've sent a 6-digit code.";

async function toStepTwo(routes?: (r: ConnectRouter) => void, resendInMs?: number) {
  const requestReset = vi.fn(() => ({ resendAvailableAt: resendInMs === undefined ? undefined : timestampFromMs(Date.now() + resendInMs) }));
  const app = renderApp("/forgot-password", {
    routes: (r) => {
      r.rpc(AuthService.method.requestPasswordReset, requestReset);
      routes?.(r);
    },
  });
  await screen.findByRole("heading", { name: "Forgot Password" });
  await app.user.type(screen.getByLabelText("Email"), "thandi@example.co.za");
  await app.user.click(screen.getByRole("button", { name: "Send Code" }));
  await screen.findByText(NEUTRAL);
  return { ...app, requestReset };
}

describe("forgot password", () => {
  it("is linked from the login page", async () => {
    const { user, router } = renderApp("/login");
    await user.click(await screen.findByRole("link", { name: "Forgot password?" }));
    expect(await screen.findByRole("heading", { name: "Forgot Password" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/forgot-password");
  });

  it("puts the focus in each step's first field: the e-mail, then the code", async () => {
    const { user } = renderApp("/forgot-password", {
      routes: (r) => r.rpc(AuthService.method.requestPasswordReset, () => ({})),
    });
    const email = await screen.findByLabelText("Email");
    await waitFor(() => expect(email).toHaveFocus());
    await user.keyboard("thandi@example.co.za{Enter}");
    await screen.findByText(NEUTRAL);
    await waitFor(() => expect(screen.getByLabelText("Reset code")).toHaveFocus());
    await user.click(screen.getByRole("button", { name: "Use a different email" }));
    await waitFor(() => expect(screen.getByLabelText("Email")).toHaveFocus());
  });

  it("asks for a valid e-mail address before calling", async () => {
    const requestReset = vi.fn(() => ({}));
    const { user } = renderApp("/forgot-password", { routes: (r) => r.rpc(AuthService.method.requestPasswordReset, requestReset) });
    await screen.findByRole("heading", { name: "Forgot Password" });
    await user.click(screen.getByRole("button", { name: "Send Code" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Please enter your email address.");
    await user.type(screen.getByLabelText("Email"), "not-an-email");
    await user.click(screen.getByRole("button", { name: "Send Code" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Please enter a valid email address.");
    expect(requestReset).not.toHaveBeenCalled();
  });

  it("always gives the same neutral answer, then asks for the code and the new password", async () => {
    const { requestReset } = await toStepTwo();
    expect(requestReset).toHaveBeenCalledWith(expect.objectContaining({ email: "thandi@example.co.za" }), expect.anything());
    expect(screen.getByText("thandi@example.co.za")).toBeInTheDocument();
    expect(screen.getByLabelText("Reset code")).toBeInTheDocument();
    expect(screen.getByLabelText("New password")).toBeInTheDocument();
    expect(screen.getByLabelText("Confirm new password")).toBeInTheDocument();
    // No date from the server: the spec's 60 s countdown.
    expect(screen.getByText(/01:00|00:59/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Resend code" })).toBeDisabled();
  });

  it("shows the server's message when the request is refused", async () => {
    const { user } = renderApp("/forgot-password", {
      routes: (r) =>
        r.rpc(AuthService.method.requestPasswordReset, () => {
          throw new ConnectError("Too many requests. Please try again in a few minutes.", Code.ResourceExhausted);
        }),
    });
    await screen.findByRole("heading", { name: "Forgot Password" });
    await user.type(screen.getByLabelText("Email"), "thandi@example.co.za");
    await user.click(screen.getByRole("button", { name: "Send Code" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many requests. Please try again in a few minutes.");
  });

  it("keeps digits only in the code, at most six", async () => {
    const { user } = await toStepTwo();
    const code = screen.getByLabelText("Reset code");
    await user.type(code, "12a3-45 678");
    expect(code).toHaveValue("123456");
  });

  it("checks the code and the new password", async () => {
    const reset = vi.fn(() => ({}));
    const { user } = await toStepTwo((r) => r.rpc(AuthService.method.resetPassword, reset));
    await user.type(screen.getByLabelText("Reset code"), "123");
    await user.type(screen.getByLabelText("New password"), "short");
    await user.click(screen.getByRole("button", { name: "Reset Password" }));
    expect(await screen.findByText("Please enter the 6-digit code.")).toBeInTheDocument();
    expect(screen.getByText("New password must be at least 8 characters")).toBeInTheDocument();
    expect(screen.getByText("Confirm password is required")).toBeInTheDocument();

    await user.type(screen.getByLabelText("Reset code"), "456");
    await user.clear(screen.getByLabelText("New password"));
    await user.type(screen.getByLabelText("New password"), "correct-horse-1");
    await user.type(screen.getByLabelText("Confirm new password"), "correct-horse-2");
    await user.click(screen.getByRole("button", { name: "Reset Password" }));
    expect(await screen.findByText("Passwords do not match")).toBeInTheDocument();
    expect(reset).not.toHaveBeenCalled();
  });

  it("resets the password, says so and goes to login", async () => {
    let received: ResetPasswordRequest | undefined;
    const { user, router } = await toStepTwo((r) =>
      r.rpc(AuthService.method.resetPassword, (request) => {
        received = request;
        return {};
      }),
    );
    await user.type(screen.getByLabelText("Reset code"), "123456");
    await user.type(screen.getByLabelText("New password"), "correct-horse-1");
    await user.type(screen.getByLabelText("Confirm new password"), "correct-horse-1");
    await user.click(screen.getByRole("button", { name: "Reset Password" }));

    expect(await screen.findByRole("heading", { name: "Welcome Back" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/login");
    await expectToast("Password reset");
    expect(received).toMatchObject({
      email: "thandi@example.co.za",
      code: "123456",
      newPassword: "correct-horse-1",
      confirmPassword: "correct-horse-1",
    });
  });

  it("shows the server's message when the code is refused", async () => {
    const { user, router } = await toStepTwo((r) =>
      r.rpc(AuthService.method.resetPassword, () => {
        throw new ConnectError("The code has expired. Please request a new one.", Code.InvalidArgument);
      }),
    );
    await user.type(screen.getByLabelText("Reset code"), "123456");
    await user.type(screen.getByLabelText("New password"), "correct-horse-1");
    await user.type(screen.getByLabelText("Confirm new password"), "correct-horse-1");
    await user.click(screen.getByRole("button", { name: "Reset Password" }));
    await expectToast("Password reset failed", "The code has expired. Please request a new one.");
    expect(screen.getByRole("alert")).toHaveTextContent("The code has expired. Please request a new one.");
    expect(router.state.location.pathname).toBe("/forgot-password");
  });

  it("a refused code's 'Password reset failed' does not follow the right one to the login page", async () => {
    // Sonner holds its toasts while the page is hidden (the sender reading the code in their
    // mail app), so here only a dismissal takes the error away, not the 4 s timer.
    vi.spyOn(document, "hidden", "get").mockReturnValue(true);
    let tries = 0;
    const { user } = await toStepTwo((r) =>
      r.rpc(AuthService.method.resetPassword, () => {
        tries += 1;
        if (tries === 1) throw new ConnectError("The code is incorrect or has expired.", Code.InvalidArgument);
        return {};
      }),
    );
    await user.type(screen.getByLabelText("Reset code"), "111111");
    await user.type(screen.getByLabelText("New password"), "correct-horse-1");
    await user.type(screen.getByLabelText("Confirm new password"), "correct-horse-1");
    await user.click(screen.getByRole("button", { name: "Reset Password" }));
    await expectToast("Password reset failed", "The code is incorrect or has expired.");

    await user.clear(screen.getByLabelText("Reset code"));
    await user.type(screen.getByLabelText("Reset code"), "123456");
    await user.click(screen.getByRole("button", { name: "Reset Password" }));
    expect(await screen.findByRole("heading", { name: "Welcome Back" })).toBeInTheDocument();
    await expectToast("Password reset");
    await expectNoToast("Password reset failed");
  });

  it("resends the code (purpose PASSWORD_RESET) once the countdown is over", async () => {
    let received: ResendCodeRequest | undefined;
    const { user } = await toStepTwo(
      (r) =>
        r.rpc(AuthService.method.resendCode, (request) => {
          received = request;
          return { resendAvailableAt: timestampFromMs(Date.now() + 60_000) };
        }),
      1_000,
    );
    const resend = screen.getByRole("button", { name: "Resend code" });
    expect(resend).toBeDisabled();
    await waitFor(() => expect(resend).toBeEnabled(), { timeout: 3000 });
    await user.type(screen.getByLabelText("Reset code"), "111");
    await user.click(resend);

    await expectToast("OTP Resent", "We sent a new code to thandi@example.co.za.");
    expect(received).toMatchObject({ email: "thandi@example.co.za", purpose: CodePurpose.PASSWORD_RESET });
    expect(screen.getByLabelText("Reset code")).toHaveValue("");
    expect(screen.getByRole("button", { name: "Resend code" })).toBeDisabled();
  });

  it("can go back to use a different e-mail", async () => {
    const { user } = await toStepTwo();
    await user.click(screen.getByRole("button", { name: "Use a different email" }));
    expect(screen.getByLabelText("Email")).toBeInTheDocument();
    expect(screen.queryByText(NEUTRAL)).not.toBeInTheDocument();
  });
});
