import { Code, ConnectError } from "@connectrpc/connect";
import { screen, within, waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { AuthService } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { STATIC_PAGES } from "./public/static-pages";

describe("public routes", () => {
  it("shows the landing page with the header, the three steps and the banner", async () => {
    renderApp("/");
    expect(await screen.findByRole("heading", { level: 1, name: "Send cash to any ATM in South Africa" })).toBeInTheDocument();
    const header = screen.getByRole("banner");
    expect(within(header).getByRole("link", { name: "Log In" })).toHaveAttribute("href", "/login");
    expect(within(header).getByRole("link", { name: "Get Started" })).toHaveAttribute("href", "/signup");
    expect(within(header).getByRole("link", { name: "Thumela" })).toHaveAttribute("href", "/");
    for (const step of ["Create Profile", "Add Payment Method", "Send Money"]) {
      expect(screen.getByRole("heading", { name: step })).toBeInTheDocument();
    }
    expect(screen.getByRole("heading", { name: "First Transfer Free!" })).toBeInTheDocument();
  });

  it.each(STATIC_PAGES.map((page) => [page.path, page.title]))("%s shows its own page with its heading", async (path, title) => {
    renderApp(path);
    expect(await screen.findByRole("heading", { level: 1, name: title }, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.queryByText("This page is coming soon.")).not.toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Oops! Page not found" })).not.toBeInTheDocument();
    // The root layout sets the title from an effect, which React may run after the heading is
    // painted (on a busy machine the previous page's title was still there).
    await waitFor(() => expect(document.title).toBe(`${title} | Thumela`));
  });

  // The sign-in screens' tab titles are their headings, in the spec's casing ('Create Your
  // Account', 'Verify Your Identity'), as the app's pages pair theirs ("Payment Methods").
  // /login is the exception on purpose: its heading greets ('Welcome Back'), its tab says "Log in".
  it.each([
    ["/signup", "Create Your Account"],
    ["/otp-verification", "Verify Your Identity"],
    ["/forgot-password", "Forgot Password"],
  ])("%s has its heading as its tab title", async (path, heading) => {
    renderApp(path);
    expect(await screen.findByRole("heading", { level: 1, name: heading }, { timeout: 5000 })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe(`${heading} | Thumela`));
  });

  it("answers unknown paths with the 404 page and logs the path", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    renderApp("/no/such/page");
    expect(await screen.findByRole("heading", { name: "Oops! Page not found" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Return to Home" })).toHaveAttribute("href", "/");
    // The page logs from an effect, which React may run after the heading is painted.
    await waitFor(() => expect(warn).toHaveBeenCalledWith(expect.stringContaining("/no/such/page")));
  });
});

describe("logout", () => {
  it("signs out, says so, and goes to the login page", async () => {
    const { user, router, queryClient } = renderApp("/logout", { session: SIGNED_IN });
    await user.click(await screen.findByRole("button", { name: "Log Out" }));
    expect(await screen.findByRole("heading", { name: "Welcome Back" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/login");
    expect(await screen.findByText("Logged out")).toBeInTheDocument();
    expect(screen.getByText("You have been successfully logged out.")).toBeInTheDocument();
    expect(queryClient.getQueryCache().findAll({ queryKey: ["connect-query", { methodName: "GetSession" }] })).toHaveLength(0);
  });

  it("goes back to the dashboard when signing out fails", async () => {
    const { user, router } = renderApp("/logout", {
      session: SIGNED_IN,
      routes: (r) =>
        r.rpc(AuthService.method.signOut, () => {
          throw new ConnectError("boom", Code.Internal);
        }),
    });
    await user.click(await screen.findByRole("button", { name: "Log Out" }));
    expect(await screen.findByText("Logout failed")).toBeInTheDocument();
    expect(screen.getByText("Something went wrong. Please try again.")).toBeInTheDocument();
    expect(await screen.findByRole("heading", { name: "Quick Actions" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/dashboard");
  });

  it("asks first when /logout is reached directly (a link on another site), and Cancel keeps the session", async () => {
    let signOuts = 0;
    const { user, router } = renderApp("/logout", {
      session: SIGNED_IN,
      routes: (r) =>
        r.rpc(AuthService.method.signOut, () => {
          signOuts++;
          return {};
        }),
    });
    expect(await screen.findByRole("heading", { name: "Log out of Thumela?" })).toBeInTheDocument();
    await user.click(screen.getByRole("link", { name: "Cancel" }));
    expect(await screen.findByRole("heading", { name: "Quick Actions" }, { timeout: 5000 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/dashboard");
    expect(signOuts).toBe(0);
  });

  it("sends a visitor who is not signed in to the login page, without a question or a 'Logged out'", async () => {
    let signOuts = 0;
    const { router } = renderApp("/logout", {
      routes: (r) =>
        r.rpc(AuthService.method.signOut, () => {
          signOuts++;
          return {};
        }),
    });
    expect(await screen.findByRole("heading", { name: "Welcome Back" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/login");
    expect(screen.queryByRole("heading", { name: "Log out of Thumela?" })).not.toBeInTheDocument();
    expect(screen.queryByText("Logged out")).not.toBeInTheDocument();
    expect(signOuts).toBe(0);
  });

  it("signs out from the sidebar's Log Out link", async () => {
    const { user, router } = renderApp("/dashboard", { session: SIGNED_IN });
    const nav = await screen.findByRole("navigation", { name: "Main navigation" }, { timeout: 5000 });
    await user.click(within(nav).getByRole("link", { name: "Log Out" }));
    expect(await screen.findByRole("heading", { name: "Welcome Back" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/login");

    // Signed out for real: the dashboard now sends the visitor to login.
    await router.navigate("/dashboard");
    await vi.waitFor(() => expect(router.state.location.search).toBe("?redirect=%2Fdashboard"));
    expect(await screen.findByRole("heading", { name: "Welcome Back" })).toBeInTheDocument();
  });
});
