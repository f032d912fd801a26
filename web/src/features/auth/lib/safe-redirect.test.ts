import { describe, expect, it } from "vitest";
import { loginPathFor, safeRedirect } from "./safe-redirect";

describe("safeRedirect", () => {
  it("keeps in-app paths with their query", () => {
    expect(safeRedirect("/transactions")).toBe("/transactions");
    expect(safeRedirect("/send-money?amount=50.00")).toBe("/send-money?amount=50.00");
  });

  it.each([null, undefined, "", "https://evil.example", "//evil.example", "/\\evil.example", "/login", "/logout?x=1"])(
    "sends %s to the dashboard",
    (target) => {
      expect(safeRedirect(target)).toBe("/dashboard");
    },
  );

  it.each([
    ["a tab", "/\t/evil.example"],
    ["a carriage return", "/\r/evil.example"],
    ["a line feed", "/\n/evil.example"],
    ["CR LF", "/\r\n/evil.example"],
    ["a leading tab", "\t/transactions"],
    ["a space", "/ /evil.example"],
    ["a no-break space", "/transactions\u00a0"],
    ["a NUL", "/transactions\u0000"],
    ["DEL", "/\u007f/evil.example"],
    ["a C1 control", "/\u0085/evil.example"],
    ["a line separator", "/\u2028/evil.example"],
  ])("sends a target with %s to the dashboard", (_, target) => {
    expect(safeRedirect(target)).toBe("/dashboard");
  });

  it("decodes /login?redirect=%2F%09%2Fevil.example to the dashboard", () => {
    const redirect = new URLSearchParams("redirect=%2F%09%2Fevil.example").get("redirect");
    expect(redirect).toBe("/\t/evil.example");
    expect(safeRedirect(redirect)).toBe("/dashboard");
  });

  it("keeps percent-encoded spaces in an in-app path", () => {
    expect(safeRedirect("/send-money?recipient=Sipho%20Dlamini")).toBe("/send-money?recipient=Sipho%20Dlamini");
  });

  it("builds the login URL", () => {
    expect(loginPathFor("/send-money?amount=5")).toBe("/login?redirect=%2Fsend-money%3Famount%3D5");
  });
});
