import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { act, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { AuthService, CodePurpose } from "@/gen/thumela/bff/v1/bff_pb";
import type { ResendCodeRequest, VerifyEmailRequest } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { expectNoToast, expectToast } from "@/test/toasts";
import { savePendingVerification } from "../api/pending-verification";
import { formatCountdown } from "./use-countdown";

describe("OTP verification", () => {
  it("puts the focus in the code field, the screen's one field", async () => {
    savePendingVerification({ email: "thandi@example.co.za" });
    renderApp("/otp-verification");
    const input = await screen.findByRole("textbox", { name: "Verification code" });
    await vi.waitFor(() => expect(input).toHaveFocus());
  });

  it("keeps digits only, at most six, and enables Verify at exactly six", async () => {
    savePendingVerification({ email: "thandi@example.co.za" });
    const { user } = renderApp("/otp-verification");
    const input = await screen.findByRole("textbox", { name: "Verification code" });
    const verify = screen.getByRole("button", { name: "Verify" });

    expect(input).toHaveAttribute("inputmode", "numeric");
    expect(input).toHaveAttribute("autocomplete", "one-time-code");
    expect(screen.getByText("thandi@example.co.za")).toBeInTheDocument();
    expect(verify).toBeDisabled();

    await user.type(input, "12a-3 4b5");
    expect(input).toHaveValue("12345");
    expect(verify).toBeDisabled();

    await user.type(input, "6789");
    expect(input).toHaveValue("123456");
    expect(verify).toBeEnabled();

    await user.type(input, "{backspace}");
    expect(verify).toBeDisabled();
  });

  it("verifies the code, then opens the dashboard signed in", async () => {
    savePendingVerification({ email: "thandi@example.co.za" });
    let received: VerifyEmailRequest | undefined;
    const { user, router } = renderApp("/otp-verification", {
      routes: (r, state) =>
        r.rpc(AuthService.method.verifyEmail, (request) => {
          received = request;
          state.session = SIGNED_IN;
          return SIGNED_IN;
        }),
    });
    await user.type(await screen.findByRole("textbox", { name: "Verification code" }), "482913");
    await user.click(screen.getByRole("button", { name: "Verify" }));

    expect(await screen.findByRole("heading", { name: "Quick Actions" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/dashboard");
    expect(received).toMatchObject({ email: "thandi@example.co.za", code: "482913" });
    expect(window.sessionStorage.getItem("thumela.pendingVerification")).toBeNull();
  });

  it("shows the server's one message for any refused code", async () => {
    savePendingVerification({ email: "thandi@example.co.za" });
    const { user } = renderApp("/otp-verification", {
      routes: (r) =>
        r.rpc(AuthService.method.verifyEmail, () => {
          throw new ConnectError(
            "The code is incorrect or has expired. Please check it or request a new one.",
            Code.InvalidArgument,
          );
        }),
    });
    await user.type(await screen.findByRole("textbox", { name: "Verification code" }), "000000");
    await user.click(screen.getByRole("button", { name: "Verify" }));
    expect(
      await screen.findByText("The code is incorrect or has expired. Please check it or request a new one."),
    ).toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: "Verification code" })).toBeInTheDocument();
  });

  it("a wrong code's 'Verification failed' does not follow the right one to the dashboard", async () => {
    // Sonner holds its toasts while the page is hidden (the sender reading the code in their
    // mail app), so here only a dismissal takes the error away, not the 4 s timer.
    vi.spyOn(document, "hidden", "get").mockReturnValue(true);
    savePendingVerification({ email: "thandi@example.co.za" });
    let tries = 0;
    const { user } = renderApp("/otp-verification", {
      routes: (r, state) =>
        r.rpc(AuthService.method.verifyEmail, () => {
          tries += 1;
          if (tries === 1) {
            throw new ConnectError("The code is incorrect or has expired. Please check it or request a new one.", Code.InvalidArgument);
          }
          state.session = SIGNED_IN;
          return SIGNED_IN;
        }),
    });
    const input = await screen.findByRole("textbox", { name: "Verification code" });
    await user.type(input, "000000");
    await user.click(screen.getByRole("button", { name: "Verify" }));
    await expectToast("Verification failed");
    await user.clear(input);
    await user.type(input, "482913");
    await user.click(screen.getByRole("button", { name: "Verify" }));

    expect(await screen.findByRole("heading", { name: "Quick Actions" })).toBeInTheDocument();
    await expectNoToast("Verification failed");
  });

  it("a wrong code's toast gives way to one, not two, on a second wrong try", async () => {
    savePendingVerification({ email: "thandi@example.co.za" });
    const { user } = renderApp("/otp-verification", {
      routes: (r) =>
        r.rpc(AuthService.method.verifyEmail, () => {
          throw new ConnectError("The code is incorrect or has expired. Please check it or request a new one.", Code.InvalidArgument);
        }),
    });
    await user.type(await screen.findByRole("textbox", { name: "Verification code" }), "000000");
    await user.click(screen.getByRole("button", { name: "Verify" }));
    await expectToast("Verification failed");
    await user.click(screen.getByRole("button", { name: "Verify" }));
    await expectToast("Verification failed");
    expect(screen.getAllByText("Verification failed")).toHaveLength(1);
  });

  // The walk of session 24: after a wrong code the focus stayed on Verify and the field looked
  // fine; the sender had to go back to it and delete the six digits first.
  it("marks a refused code's field and puts the focus back in it, the digits selected", async () => {
    savePendingVerification({ email: "thandi@example.co.za" });
    const { user } = renderApp("/otp-verification", {
      routes: (r) =>
        r.rpc(AuthService.method.verifyEmail, () => {
          throw new ConnectError("The code is incorrect or has expired. Please check it or request a new one.", Code.InvalidArgument);
        }),
    });
    const input = await screen.findByRole("textbox", { name: "Verification code" });
    await user.type(input, "000000");
    await user.click(screen.getByRole("button", { name: "Verify" }));
    await expectToast("Verification failed");
    expect(input).toHaveAttribute("aria-invalid", "true");
    expect(input).toHaveFocus();
    await user.keyboard("482913"); // replaces the selected digits
    expect(input).toHaveValue("482913");
    expect(input).not.toHaveAttribute("aria-invalid");
  });

  it("leaves the focus on Verify when the code could not be checked (no answer)", async () => {
    savePendingVerification({ email: "thandi@example.co.za" });
    const { user } = renderApp("/otp-verification", {
      routes: (r) =>
        r.rpc(AuthService.method.verifyEmail, () => {
          throw new ConnectError("unavailable", Code.Unavailable);
        }),
    });
    const input = await screen.findByRole("textbox", { name: "Verification code" });
    await user.type(input, "000000");
    await user.click(screen.getByRole("button", { name: "Verify" }));
    await expectToast("Verification failed");
    expect(input).not.toHaveAttribute("aria-invalid");
    expect(screen.getByRole("button", { name: "Verify" })).toHaveFocus();
  });

  it("counts down before a resend, then resends and restarts the countdown", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      savePendingVerification({ email: "thandi@example.co.za" });
      let received: ResendCodeRequest | undefined;
      const { user } = renderApp("/otp-verification", {
        routes: (r) =>
          r.rpc(AuthService.method.resendCode, (request) => {
            received = request;
            return { resendAvailableAt: timestampFromMs(Date.now() + 60_000) };
          }),
      });
      const resend = await screen.findByRole("button", { name: "Resend code" });
      expect(screen.getByText("01:00")).toBeInTheDocument();
      expect(resend).toBeDisabled();

      await act(() => vi.advanceTimersByTimeAsync(30_000));
      expect(screen.getByText("00:30")).toBeInTheDocument();
      expect(resend).toBeDisabled();

      await act(() => vi.advanceTimersByTimeAsync(30_000));
      expect(resend).toBeEnabled();
      await user.click(resend);

      expect(await screen.findByText("OTP Resent")).toBeInTheDocument();
      expect(received).toMatchObject({ email: "thandi@example.co.za", purpose: CodePurpose.EMAIL_VERIFICATION });
      expect(screen.getByText("01:00")).toBeInTheDocument();
      expect(resend).toBeDisabled();
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps a resend's countdown over a reload that still carries the sign-up's router state", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const email = "thandi@example.co.za";
      const signUpState = { email, resendAvailableAt: Date.now() + 60_000 };
      const { user, router } = renderApp("/login", {
        routes: (r) => r.rpc(AuthService.method.resendCode, () => ({ resendAvailableAt: timestampFromMs(Date.now() + 60_000) })),
      });
      await screen.findByRole("heading", { name: "Welcome Back" });
      // Sign-up goes to the code screen with its router state (and saves it for this tab).
      savePendingVerification(signUpState);
      await act(() => router.navigate("/otp-verification", { state: signUpState }));
      const resend = await screen.findByRole("button", { name: "Resend code" });
      await act(() => vi.advanceTimersByTimeAsync(60_000));
      expect(resend).toBeEnabled();
      await user.click(resend);
      expect(await screen.findByText("OTP Resent")).toBeInTheDocument();
      await act(() => vi.advanceTimersByTimeAsync(10_000));
      expect(screen.getByText("00:50")).toBeInTheDocument();

      // A reload: the page mounts again, the history entry still holds the sign-up's state.
      await act(() => router.navigate("/login"));
      await screen.findByRole("heading", { name: "Welcome Back" });
      await act(() => router.navigate("/otp-verification", { state: signUpState }));
      expect(await screen.findByRole("button", { name: "Resend code" })).toBeDisabled();
      expect(screen.getByText("00:50")).toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it("links back to sign-up when it does not know the e-mail", async () => {
    renderApp("/otp-verification");
    expect(await screen.findByRole("link", { name: "Go to sign-up" })).toHaveAttribute("href", "/signup");
    expect(screen.queryByRole("textbox", { name: "Verification code" })).not.toBeInTheDocument();
  });
});

describe("formatCountdown", () => {
  it("writes mm:ss", () => {
    expect(formatCountdown(60)).toBe("01:00");
    expect(formatCountdown(9)).toBe("00:09");
    expect(formatCountdown(0)).toBe("00:00");
  });
});
