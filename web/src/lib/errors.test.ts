import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { errorMessage, hasCode } from "./errors";

describe("errorMessage", () => {
  it("shows the server's message", () => {
    const err = new ConnectError("Invalid email or password.", Code.Unauthenticated);
    expect(errorMessage(err, "fallback")).toBe("Invalid email or password.");
  });

  it("falls back when the server sent no message or none was reached", () => {
    expect(errorMessage(new ConnectError("", Code.InvalidArgument), "fallback")).toBe("fallback");
    expect(errorMessage(new ConnectError("Failed to fetch", Code.Unknown), "fallback")).toBe("fallback");
    expect(errorMessage(new Error("boom"), "fallback")).toBe("fallback");
  });

  it("tells codes apart", () => {
    expect(hasCode(new ConnectError("x", Code.FailedPrecondition), Code.FailedPrecondition)).toBe(true);
    expect(hasCode(new Error("x"), Code.FailedPrecondition)).toBe(false);
  });
});
