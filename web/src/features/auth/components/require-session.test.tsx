import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { SIGNED_IN, renderApp } from "@/test/render-app";

describe("signed-in route guard", () => {
  it("sends a signed-out visitor of /dashboard to the login page, remembering the path", async () => {
    const { router } = renderApp("/dashboard");
    expect(await screen.findByRole("heading", { name: "Welcome Back" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/login");
    expect(router.state.location.search).toBe("?redirect=%2Fdashboard");
  });

  it("keeps the query string of the asked page", async () => {
    const { router } = renderApp("/send-money?amount=50.00&recipient=Sipho");
    await screen.findByRole("heading", { name: "Welcome Back" });
    expect(new URLSearchParams(router.state.location.search).get("redirect")).toBe(
      "/send-money?amount=50.00&recipient=Sipho",
    );
  });

  it("lets a signed-in visitor in", async () => {
    renderApp("/dashboard", { session: SIGNED_IN });
    expect(await screen.findByRole("heading", { name: "Quick Actions" })).toBeInTheDocument();
  });
});
