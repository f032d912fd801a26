import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { badRequestDetail, errorWithDetails, retryInfoDetail } from "@/test/error-details";
import { errorMessage, fieldViolations, hasCode, rateLimitMessage, retryAfterSeconds, tooManyAttempts } from "./errors";

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

describe("error details", () => {
  it("reads google.rpc.RetryInfo's delay", () => {
    expect(retryAfterSeconds(errorWithDetails("slow down", Code.ResourceExhausted, retryInfoDetail(420)))).toBe(420);
    expect(retryAfterSeconds(new ConnectError("slow down", Code.ResourceExhausted))).toBeUndefined();
    expect(retryAfterSeconds(new Error("x"))).toBeUndefined();
  });

  it("reads google.rpc.BadRequest's field violations in order", () => {
    const error = errorWithDetails(
      "invalid request",
      Code.InvalidArgument,
      badRequestDetail([
        { field: "email", description: "Please enter a valid e-mail address." },
        { field: "message", description: "Please enter a message." },
      ]),
    );
    expect(fieldViolations(error)).toEqual([
      { field: "email", description: "Please enter a valid e-mail address." },
      { field: "message", description: "Please enter a message." },
    ]);
    expect(fieldViolations(new ConnectError("x", Code.InvalidArgument))).toEqual([]);
  });

  it("survives a detail that does not decode", () => {
    const error = errorWithDetails("x", Code.ResourceExhausted, { type: "google.rpc.RetryInfo", value: new Uint8Array([0x0a, 0xff]) });
    expect(retryAfterSeconds(error)).toBeUndefined();
  });
});

describe("rate limits", () => {
  it("words the wait in seconds, then minutes", () => {
    expect(tooManyAttempts(0.3)).toBe("Too many attempts. Please try again in 1 second.");
    expect(tooManyAttempts(12)).toBe("Too many attempts. Please try again in 12 seconds.");
    expect(tooManyAttempts(75)).toBe("Too many attempts. Please try again in 1 minute.");
    expect(tooManyAttempts(14 * 60 + 5)).toBe("Too many attempts. Please try again in 15 minutes.");
  });

  it("shows the BFF's refusal from RetryInfo", () => {
    const err = errorWithDetails("Too many attempts. Please try again in 7 seconds.", Code.ResourceExhausted, retryInfoDetail(420));
    expect(errorMessage(err, "fallback")).toBe("Too many attempts. Please try again in 7 minutes.");
  });

  it("reads Retry-After when there is no RetryInfo", () => {
    const err = new ConnectError("", Code.ResourceExhausted, new Headers({ "Retry-After": "30" }));
    expect(errorMessage(err, "fallback")).toBe("Too many attempts. Please try again in 30 seconds.");
    expect(rateLimitMessage(new ConnectError("", Code.ResourceExhausted, new Headers({ "Retry-After": "soon" })))).toBeUndefined();
  });

  it("leaves the services' own ResourceExhausted answers and other codes alone", () => {
    const resend = errorWithDetails("Please wait 40 seconds before requesting a new code.", Code.ResourceExhausted, retryInfoDetail(40));
    expect(errorMessage(resend, "fallback")).toBe("Please wait 40 seconds before requesting a new code.");
    expect(rateLimitMessage(new ConnectError("Too many attempts.", Code.InvalidArgument))).toBeUndefined();
  });
});
