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

  it("builds the login URL", () => {
    expect(loginPathFor("/send-money?amount=5")).toBe("/login?redirect=%2Fsend-money%3Famount%3D5");
  });
});
