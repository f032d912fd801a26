import { Code, ConnectError } from "@connectrpc/connect";
import { screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { AuthService, SystemService } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { expectNoToast, expectToast } from "@/test/toasts";

describe("login", () => {
  it("opens with the focus in the Email field", async () => {
    renderApp("/login");
    const email = await screen.findByLabelText("Email");
    await vi.waitFor(() => expect(email).toHaveFocus());
  });

  it("asks for both email and password", async () => {
    const signIn = vi.fn();
    const { user } = renderApp("/login", { routes: (r) => r.rpc(AuthService.method.signIn, signIn) });
    await screen.findByRole("heading", { name: "Welcome Back" });

    await user.type(screen.getByLabelText("Email"), "thandi@example.co.za");
    await user.click(screen.getByRole("button", { name: "Log In" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("Please enter both email and password.");
    expect(signIn).not.toHaveBeenCalled();
  });

  it("has an e-mail field, a password toggle and links to reset and sign-up", async () => {
    const { user } = renderApp("/login");
    const email = await screen.findByLabelText("Email");
    expect(email).toHaveAttribute("type", "email");

    const password = screen.getByLabelText("Password");
    expect(password).toHaveAttribute("type", "password");
    await user.click(screen.getByRole("button", { name: "Show password" }));
    expect(password).toHaveAttribute("type", "text");
    await user.click(screen.getByRole("button", { name: "Hide password" }));
    expect(password).toHaveAttribute("type", "password");

    expect(screen.getByRole("link", { name: "Forgot password?" })).toHaveAttribute("href", "/forgot-password");
    expect(screen.getByRole("link", { name: "Sign up" })).toHaveAttribute("href", "/signup");
  });

  it("tabs from Email to Password, then to 'Forgot password?' and Log In", async () => {
    const { user } = renderApp("/login");
    const email = await screen.findByLabelText("Email");
    email.focus();
    await user.tab();
    expect(screen.getByLabelText("Password")).toHaveFocus();
    await user.tab();
    expect(screen.getByRole("button", { name: "Show password" })).toHaveFocus();
    await user.tab();
    expect(screen.getByRole("link", { name: "Forgot password?" })).toHaveFocus();
    await user.tab();
    expect(screen.getByRole("button", { name: "Log In" })).toHaveFocus();
  });

  it("ignores a redirect with a tab in it and goes to the dashboard", async () => {
    const { user, router } = renderApp("/login?redirect=%2F%09%2Fevil.example", {
      routes: (r, state) =>
        r.rpc(AuthService.method.signIn, () => {
          state.session = SIGNED_IN;
          return SIGNED_IN;
        }),
    });
    await screen.findByRole("heading", { name: "Welcome Back" });
    await user.type(screen.getByLabelText("Email"), "thandi@example.co.za");
    await user.type(screen.getByLabelText("Password"), "correct-horse");
    await user.click(screen.getByRole("button", { name: "Log In" }));

    expect(await screen.findByRole("heading", { name: "Quick Actions" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/dashboard");
  });

  it("shows the server's message in a toast and inline when sign-in fails", async () => {
    const { user } = renderApp("/login", {
      routes: (r) =>
        r.rpc(AuthService.method.signIn, () => {
          throw new ConnectError("Invalid email or password.", Code.Unauthenticated);
        }),
    });
    await screen.findByRole("heading", { name: "Welcome Back" });
    await user.type(screen.getByLabelText("Email"), "thandi@example.co.za");
    await user.type(screen.getByLabelText("Password"), "wrong-password");
    await user.click(screen.getByRole("button", { name: "Log In" }));

    expect(await screen.findByText("Login failed")).toBeInTheDocument();
    expect(await screen.findByRole("alert")).toHaveTextContent("Invalid email or password.");
    expect(screen.getAllByText("Invalid email or password.")).toHaveLength(2); // toast + inline
  });

  it("a failed attempt's 'Login failed' does not follow the next, successful one to the dashboard", async () => {
    // Sonner holds its toasts while the page is hidden (the sender reading the code in their
    // mail app), so here only a dismissal takes the error away, not the 4 s timer.
    vi.spyOn(document, "hidden", "get").mockReturnValue(true);
    let tries = 0;
    const { user } = renderApp("/login", {
      routes: (r, state) =>
        r.rpc(AuthService.method.signIn, () => {
          tries += 1;
          if (tries === 1) throw new ConnectError("Invalid email or password.", Code.Unauthenticated);
          state.session = SIGNED_IN;
          return SIGNED_IN;
        }),
    });
    await screen.findByRole("heading", { name: "Welcome Back" });
    await user.type(screen.getByLabelText("Email"), "thandi@example.co.za");
    await user.type(screen.getByLabelText("Password"), "wrong-password");
    await user.click(screen.getByRole("button", { name: "Log In" }));
    await expectToast("Login failed", "Invalid email or password.");

    await user.clear(screen.getByLabelText("Password"));
    await user.type(screen.getByLabelText("Password"), "Correct-Horse-42");
    await user.click(screen.getByRole("button", { name: "Log In" }));
    expect(await screen.findByRole("heading", { name: "Quick Actions" })).toBeInTheDocument();
    await expectNoToast("Login failed");
  });

  it("falls back to the spec's texts when the server cannot be reached", async () => {
    const { user } = renderApp("/login", {
      routes: (r) =>
        r.rpc(AuthService.method.signIn, () => {
          throw new ConnectError("Failed to fetch", Code.Unavailable);
        }),
    });
    await screen.findByRole("heading", { name: "Welcome Back" });
    await user.type(screen.getByLabelText("Email"), "thandi@example.co.za");
    await user.type(screen.getByLabelText("Password"), "whatever-it-is");
    await user.click(screen.getByRole("button", { name: "Log In" }));

    expect(await screen.findByText("Unable to login. Please try again.")).toBeInTheDocument();
    expect(await screen.findByRole("alert")).toHaveTextContent(
      "Failed to login. Please check your credentials and try again.",
    );
  });

  it("says 'Logging in...' while busy, then goes back to the page that was asked for", async () => {
    let release: () => void = () => {};
    const { user, router } = renderApp("/transactions", {
      routes: (r, state) =>
        r.rpc(AuthService.method.signIn, async () => {
          await new Promise<void>((resolve) => (release = resolve));
          state.session = SIGNED_IN;
          return SIGNED_IN;
        }),
    });
    await screen.findByRole("heading", { name: "Welcome Back" });
    expect(router.state.location.search).toBe("?redirect=%2Ftransactions");

    await user.type(screen.getByLabelText("Email"), "thandi@example.co.za");
    await user.type(screen.getByLabelText("Password"), "correct-horse");
    await user.click(screen.getByRole("button", { name: "Log In" }));

    expect(await screen.findByRole("button", { name: "Logging in..." })).toHaveAttribute("aria-disabled", "true");
    release();

    expect(await screen.findByRole("heading", { name: "Transaction History" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/transactions");
  });

  it("goes to the dashboard when nothing was asked for", async () => {
    const { user, router } = renderApp("/login", {
      routes: (r, state) =>
        r.rpc(AuthService.method.signIn, () => {
          state.session = SIGNED_IN;
          return SIGNED_IN;
        }),
    });
    await screen.findByRole("heading", { name: "Welcome Back" });
    await user.type(screen.getByLabelText("Email"), "thandi@example.co.za");
    await user.type(screen.getByLabelText("Password"), "correct-horse");
    await user.click(screen.getByRole("button", { name: "Log In" }));

    expect(await screen.findByRole("heading", { name: "Quick Actions" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/dashboard");
  });

  it("sends an unverified account to the verification screen", async () => {
    const { user, router } = renderApp("/login", {
      routes: (r) =>
        r.rpc(AuthService.method.signIn, () => {
          throw new ConnectError("Please verify your email address first.", Code.FailedPrecondition);
        }),
    });
    await screen.findByRole("heading", { name: "Welcome Back" });
    await user.type(screen.getByLabelText("Email"), "new@example.co.za");
    await user.type(screen.getByLabelText("Password"), "correct-horse");
    await user.click(screen.getByRole("button", { name: "Log In" }));

    expect(await screen.findByRole("heading", { name: "Verify Your Identity" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/otp-verification");
    expect(screen.getByText("new@example.co.za")).toBeInTheDocument();
  });

  it("shows a connection banner with a retry while the backend is unreachable", async () => {
    let up = false;
    const { user } = renderApp("/login", {
      routes: (r) =>
        r.rpc(SystemService.method.checkConnection, () => {
          if (!up) throw new ConnectError("Thumela is temporarily unavailable.", Code.Internal);
          return { ok: true };
        }),
    });
    expect(await screen.findByText(/Thumela is temporarily unavailable\./)).toBeInTheDocument();
    up = true;
    await user.click(screen.getByRole("button", { name: "Retry Connection" }));
    await vi.waitFor(() => expect(screen.queryByRole("button", { name: "Retry Connection" })).not.toBeInTheDocument());
  });
});
