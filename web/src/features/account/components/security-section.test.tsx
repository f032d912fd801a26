import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import {
  AccountService,
  AuthService,
  GetProfileResponseSchema,
  ListPasskeysResponseSchema,
  ListSessionsResponseSchema,
  SecurityService,
  SessionInfoSchema,
} from "@/gen/thumela/bff/v1/bff_pb";
import type { ChangePasswordRequest } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { badRequestDetail, errorWithDetails } from "@/test/error-details";
import { expectNoToast, expectToast } from "@/test/toasts";

async function openSecurity(changePassword: (request: ChangePasswordRequest) => object = () => ({})) {
  const app = renderApp("/account", {
    session: SIGNED_IN,
    routes: (r: ConnectRouter) => {
      r.rpc(AccountService.method.getProfile, () => create(GetProfileResponseSchema, { profile: SIGNED_IN.profile }));
      r.rpc(AuthService.method.changePassword, changePassword);
    },
  });
  await screen.findByRole("heading", { level: 1, name: "Account" });
  await app.user.click(screen.getByRole("tab", { name: "Security" }));
  expect(screen.getByText(/confirm your current password/)).toBeInTheDocument();
  await app.user.click(screen.getByRole("button", { name: "Change Password" }));
  return app;
}

async function fill(user: ReturnType<typeof renderApp>["user"], current: string, next: string, confirm: string) {
  if (current) await user.type(screen.getByLabelText("Current password"), current);
  if (next) await user.type(screen.getByLabelText("New password"), next);
  if (confirm) await user.type(screen.getByLabelText("Confirm new password"), confirm);
  await user.click(screen.getByRole("button", { name: "Update Password" }));
}

describe("change password", () => {
  it("asks for every field, with the spec's messages and 8 characters (DECISIONS.md)", async () => {
    const change = vi.fn(() => ({}));
    const { user } = await openSecurity(change);
    await fill(user, "", "short", "");
    expect(await screen.findByText("Current password is required")).toBeInTheDocument();
    expect(screen.getByText("New password must be at least 8 characters")).toBeInTheDocument();
    expect(screen.getByText("Confirm password is required")).toBeInTheDocument();
    expect(screen.getByLabelText("Current password")).toHaveAttribute("aria-invalid", "true");
    expect(change).not.toHaveBeenCalled();
  });

  it("says 'Passwords do not match' on the confirm field", async () => {
    const change = vi.fn(() => ({}));
    const { user } = await openSecurity(change);
    await fill(user, "old-password", "correct-horse-1", "correct-horse-2");
    expect(await screen.findByText("Passwords do not match")).toBeInTheDocument();
    expect(screen.getByLabelText("Confirm new password")).toHaveAccessibleDescription("Passwords do not match");
    expect(change).not.toHaveBeenCalled();
  });

  it.each([Code.InvalidArgument, Code.Unauthenticated])("shows 'Current password is incorrect' (code %s)", async (code) => {
    const { user, router } = await openSecurity(() => {
      throw new ConnectError("Current password is incorrect", code);
    });
    await fill(user, "wrong-password", "correct-horse-1", "correct-horse-1");
    await expectToast("Update failed", "Current password is incorrect");
    expect(screen.getByLabelText("Current password")).toHaveAccessibleDescription("Current password is incorrect");
    expect(screen.getByLabelText("Current password")).toHaveFocus();
    expect(router.state.location.pathname).toBe("/account"); // still signed in
  });

  it("changes the password, says so, closes the form and clears it", async () => {
    let received: ChangePasswordRequest | undefined;
    const { user } = await openSecurity((request) => {
      received = request;
      return {};
    });
    await fill(user, "old-password", "correct-horse-1", "correct-horse-1");
    await expectToast("Password updated", "Your password has been updated successfully.");
    expect(received).toMatchObject({ currentPassword: "old-password", newPassword: "correct-horse-1", confirmPassword: "correct-horse-1" });
    expect(screen.queryByLabelText("Current password")).not.toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Change Password" }));
    expect(screen.getByLabelText("Current password")).toHaveValue("");
    expect(screen.getByLabelText("New password")).toHaveValue("");
  });

  it.each([
    [new ConnectError("Password is too common.", Code.InvalidArgument), "Password is too common."],
    [new ConnectError("Failed to fetch", Code.Unavailable), "Failed to update password. Please try again."],
  ])("other failures say 'Update failed' with the message or the fallback (%s)", async (error, message) => {
    const { user } = await openSecurity(() => {
      throw error;
    });
    await fill(user, "old-password", "correct-horse-1", "correct-horse-1");
    await expectToast("Update failed", message);
    expect(screen.getByLabelText("Current password")).toBeInTheDocument(); // the form stays open
  });

  it("marks the new password identity refused (too common), with its words, and focuses it", async () => {
    const common = "This password is too common. Please choose one that is harder to guess.";
    const { user } = await openSecurity(() => {
      throw errorWithDetails(common, Code.InvalidArgument, badRequestDetail([{ field: "new_password", description: common }]));
    });
    await fill(user, "old-password", "password123", "password123");
    await expectToast("Update failed", common);
    const next = screen.getByLabelText("New password");
    expect(next).toHaveAttribute("aria-invalid", "true");
    expect(next).toHaveAccessibleDescription(common);
    expect(next).toHaveFocus();
  });

  it("a mistyped current password's 'Update failed' goes when the password is then changed", async () => {
    // Sonner holds its toasts while the page is hidden (the sender reading the code in their
    // mail app), so here only a dismissal takes the error away, not the 4 s timer.
    vi.spyOn(document, "hidden", "get").mockReturnValue(true);
    let tries = 0;
    const { user } = await openSecurity(() => {
      tries += 1;
      if (tries === 1) throw new ConnectError("Current password is incorrect", Code.InvalidArgument);
      return {};
    });
    await fill(user, "old-passwrod", "correct-horse-1", "correct-horse-1");
    await expectToast("Update failed", "Current password is incorrect");
    await user.clear(screen.getByLabelText("Current password"));
    await user.type(screen.getByLabelText("Current password"), "old-password");
    await user.click(screen.getByRole("button", { name: "Update Password" }));
    await expectToast("Password updated");
    await expectNoToast("Update failed");
  });

  it("Cancel closes the form", async () => {
    const { user } = await openSecurity();
    await vi.waitFor(() => expect(screen.getByLabelText("Current password")).toHaveFocus());
    await user.type(screen.getByLabelText("Current password"), "typed");
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.queryByLabelText("Current password")).not.toBeInTheDocument();
    await vi.waitFor(() => expect(screen.getByRole("button", { name: "Change Password" })).toHaveFocus());
    await user.click(screen.getByRole("button", { name: "Change Password" }));
    expect(screen.getByLabelText("Current password")).toHaveValue("");
  });
});

describe("change password and the sessions list", () => {
  it("drops the other sessions the change signed out, with their Sign out buttons", async () => {
    const here = create(SessionInfoSchema, { id: "s-here", browser: "Chrome", os: "Windows", deviceType: "desktop", current: true });
    const phone = create(SessionInfoSchema, { id: "s-phone", browser: "Safari", os: "iOS", deviceType: "mobile" });
    let sessions = [here, phone];
    const app = renderApp("/account", {
      session: SIGNED_IN,
      routes: (r: ConnectRouter) => {
        r.rpc(AccountService.method.getProfile, () => create(GetProfileResponseSchema, { profile: SIGNED_IN.profile }));
        r.rpc(AuthService.method.changePassword, () => {
          // As identity does: every other session is revoked with the change.
          sessions = [here];
          return {};
        });
        r.service(SecurityService, {
          listPasskeys: () => create(ListPasskeysResponseSchema, { passkeys: [] }),
          listSessions: () => create(ListSessionsResponseSchema, { sessions }),
        });
      },
    });
    await screen.findByRole("heading", { level: 1, name: "Account" });
    await app.user.click(screen.getByRole("tab", { name: "Security" }));
    const list = await screen.findByRole("list", { name: "Your signed-in sessions" });
    expect(within(list).getByRole("button", { name: /^Sign out .*Safari/ })).toBeInTheDocument();

    await app.user.click(screen.getByRole("button", { name: "Change Password" }));
    await fill(app.user, "old-password", "correct-horse-1", "correct-horse-1");
    await expectToast("Password updated", "Your password has been updated successfully.");
    await waitFor(() => expect(screen.queryByRole("button", { name: /^Sign out .*Safari/ })).not.toBeInTheDocument());
  });
});
