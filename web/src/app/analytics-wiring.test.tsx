import { create } from "@bufbuild/protobuf";
import { screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { savePendingVerification } from "@/features/auth/api/pending-verification";
import { AuthService, SignInResponseSchema, VerifyEmailResponseSchema } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { ANONYMOUS_ID_KEY, flushAnalytics, setAnalyticsSender } from "@/lib/analytics";
import type { AnalyticsEventInit } from "@/lib/analytics";

const SLOW = { timeout: 10_000 };

let sent: Array<{ anonymousId: string; events: AnalyticsEventInit[] }>;
beforeEach(() => {
  sent = [];
  setAnalyticsSender(async (anonymousId, events) => {
    sent.push({ anonymousId, events });
  });
});
afterEach(() => setAnalyticsSender(undefined));

async function eventsNamed(name: string) {
  await flushAnalytics();
  return sent.flatMap((batch) => batch.events).filter((event) => event.name === name);
}

describe("analytics wiring", () => {
  it("identifies the user after a successful sign-in ($identify with id and e-mail)", async () => {
    const { user } = renderApp("/login", {
      routes: (r, state) =>
        r.rpc(AuthService.method.signIn, () => {
          state.session = SIGNED_IN;
          return create(SignInResponseSchema, SIGNED_IN);
        }),
    });
    await screen.findByRole("heading", { name: "Welcome Back" }, SLOW);
    await user.type(screen.getByLabelText("Email"), "thandi@example.co.za");
    await user.type(screen.getByLabelText("Password"), "Correct-Horse-42");
    await user.click(screen.getByRole("button", { name: "Log In" }));
    await screen.findByRole("heading", { name: "Quick Actions" }, SLOW);

    const identified = await eventsNamed("$identify");
    expect(identified).toHaveLength(1);
    expect(identified[0].properties).toEqual({ user_id: "u-1", email: "thandi@example.co.za" });
  });

  it("identifies the user after verifying the e-mailed code", async () => {
    savePendingVerification({ email: "thandi@example.co.za" });
    const { user } = renderApp("/otp-verification", {
      routes: (r, state) =>
        r.rpc(AuthService.method.verifyEmail, () => {
          state.session = SIGNED_IN;
          return create(VerifyEmailResponseSchema, SIGNED_IN);
        }),
    });
    await screen.findByRole("heading", { name: "Verify Your Identity" }, SLOW);
    await user.type(screen.getByLabelText(/code/i), "123456");
    await user.click(screen.getByRole("button", { name: /verify/i }));
    await screen.findByRole("heading", { name: "Quick Actions" }, SLOW);
    expect(await eventsNamed("$identify")).toHaveLength(1);
  });

  it("resets on /logout: $reset under the old anonymous id, then a new anonymous id", async () => {
    window.localStorage.setItem(ANONYMOUS_ID_KEY, "anon-before-logout");
    const { user } = renderApp("/logout", { session: SIGNED_IN });
    await user.click(await screen.findByRole("button", { name: "Log Out" }, SLOW));
    await screen.findByRole("heading", { name: "Welcome Back" }, SLOW);
    const reset = sent.find((batch) => batch.events.some((event) => event.name === "$reset"));
    expect(reset?.anonymousId).toBe("anon-before-logout");
    expect(window.localStorage.getItem(ANONYMOUS_ID_KEY)).not.toBe("anon-before-logout");
  });
});
