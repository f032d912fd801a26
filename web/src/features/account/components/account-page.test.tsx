import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { AccountService, AuthService, GetProfileResponseSchema, UpdateProfileResponseSchema } from "@/gen/thumela/bff/v1/bff_pb";
import type { UpdateProfileRequest } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { badRequestDetail, errorWithDetails } from "@/test/error-details";
import { expectToast } from "@/test/toasts";
import type { SessionInit } from "@/test/render-app";

type ProfileInit = NonNullable<SessionInit["profile"]>;

/** GetProfile answers `profile`; UpdateProfile stores what it gets (and the session follows). */
function accountRoutes(profile: ProfileInit | "missing", extra?: (r: ConnectRouter) => void) {
  return (r: ConnectRouter, state: { session?: SessionInit }) => {
    let current = profile;
    r.rpc(AccountService.method.getProfile, () => {
      if (current === "missing") throw new ConnectError("profile not found", Code.NotFound);
      return create(GetProfileResponseSchema, { profile: current });
    });
    r.rpc(AccountService.method.updateProfile, (request) => {
      current = { firstName: request.firstName, lastName: request.lastName, phoneNumber: request.phoneNumber ? "+27821234567" : "" };
      if (state.session) state.session = { ...state.session, profile: current };
      return create(UpdateProfileResponseSchema, { profile: current });
    });
    extra?.(r);
  };
}

async function openAccount(profile: ProfileInit | "missing" = { ...SIGNED_IN.profile, phoneNumber: "+27821234567" }, extra?: (r: ConnectRouter) => void) {
  const app = renderApp("/account", { session: SIGNED_IN, routes: accountRoutes(profile, extra) });
  await screen.findByRole("heading", { level: 1, name: "Account" });
  return app;
}

describe("account page", () => {
  it("sends a signed-out visitor to login and back to /account after signing in", async () => {
    const { user, router } = renderApp("/account", {
      routes: (r, state) => {
        accountRoutes(SIGNED_IN.profile!)(r, state);
        r.rpc(AuthService.method.signIn, () => {
          state.session = SIGNED_IN;
          return SIGNED_IN;
        });
      },
    });
    await screen.findByRole("heading", { name: "Welcome Back" });
    expect(router.state.location.pathname).toBe("/login");
    expect(router.state.location.search).toBe("?redirect=%2Faccount");

    await user.type(screen.getByLabelText("Email"), "thandi@example.co.za");
    await user.type(screen.getByLabelText("Password"), "correct-horse");
    await user.click(screen.getByRole("button", { name: "Log In" }));
    expect(await screen.findByRole("heading", { level: 1, name: "Account" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/account");
  });

  it("shows a loading skeleton, then the heading and who is logged in", async () => {
    let release: () => void = () => {};
    renderApp("/account", {
      session: SIGNED_IN,
      routes: (r) =>
        r.rpc(AccountService.method.getProfile, async () => {
          await new Promise<void>((resolve) => (release = resolve));
          return create(GetProfileResponseSchema, { profile: SIGNED_IN.profile });
        }),
    });
    expect(await screen.findByRole("status", { name: "Loading your account..." })).toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Account" })).not.toBeInTheDocument();
    release();
    expect(await screen.findByRole("heading", { level: 1, name: "Account" })).toBeInTheDocument();
    expect(screen.getByText("Logged in as thandi@example.co.za")).toBeInTheDocument();
  });

  it("shows the profile read-only, with the phone grouped", async () => {
    await openAccount();
    const panel = screen.getByRole("tabpanel", { name: "Profile" });
    const value = (term: string) => within(panel).getByText(term).nextElementSibling;
    expect(value("First name")).toHaveTextContent("Thandi");
    expect(value("Last name")).toHaveTextContent("Mokoena");
    expect(value("Email")).toHaveTextContent("thandi@example.co.za");
    expect(value("Phone number")).toHaveTextContent("+27 82 123 4567");
    expect(within(panel).queryByRole("textbox")).not.toBeInTheDocument();
  });

  it("shows a dash for an empty phone, and for everything when there is no profile yet", async () => {
    await openAccount("missing");
    const panel = screen.getByRole("tabpanel", { name: "Profile" });
    for (const term of ["First name", "Last name", "Phone number"]) {
      expect(within(panel).getByText(term).nextElementSibling).toHaveTextContent("-");
    }
    expect(within(panel).getByText("Email").nextElementSibling).toHaveTextContent("thandi@example.co.za");
  });

  it("has Profile (default) and Security tabs that work by keyboard", async () => {
    const { user } = await openAccount();
    const profileTab = screen.getByRole("tab", { name: "Profile" });
    expect(profileTab).toHaveAttribute("aria-selected", "true");
    expect(screen.getByRole("tab", { name: "Security" })).toHaveAttribute("aria-selected", "false");

    profileTab.focus();
    await user.keyboard("{ArrowRight}");
    expect(screen.getByRole("tab", { name: "Security" })).toHaveAttribute("aria-selected", "true");
    expect(screen.getByRole("tabpanel", { name: "Security" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Change Password" })).toBeInTheDocument();
  });

  it("requires first and last name", async () => {
    const update = vi.fn();
    const { user } = await openAccount(undefined, (r) => r.rpc(AccountService.method.updateProfile, update));
    await user.click(screen.getByRole("button", { name: "Edit Profile" }));
    await user.clear(screen.getByLabelText("First name"));
    await user.clear(screen.getByLabelText("Last name"));
    await user.click(screen.getByRole("button", { name: "Save Changes" }));

    expect(await screen.findByText("First name is required")).toBeInTheDocument();
    expect(screen.getByText("Last name is required")).toBeInTheDocument();
    expect(screen.getByLabelText("First name")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByLabelText("First name")).toHaveAccessibleDescription("First name is required");
    expect(update).not.toHaveBeenCalled();
  });

  it("shows a bad phone number with a missing name, every mistake of one Save at once", async () => {
    const update = vi.fn();
    const { user } = await openAccount(undefined, (r) => r.rpc(AccountService.method.updateProfile, update));
    await user.click(screen.getByRole("button", { name: "Edit Profile" }));
    await user.clear(screen.getByLabelText("First name"));
    await user.type(screen.getByLabelText("Phone number"), "12345");
    await user.click(screen.getByRole("button", { name: "Save Changes" }));

    expect(await screen.findByText("First name is required")).toBeInTheDocument();
    const phone = screen.getByLabelText("Phone number");
    expect(phone).toHaveAttribute("aria-invalid", "true");
    expect(phone).toHaveAccessibleDescription(expect.stringContaining("Please enter a valid South African mobile number."));
    expect(screen.getByLabelText("First name")).toHaveFocus();
    expect(update).not.toHaveBeenCalled();
  });

  it("refuses a name that carries a web address under the field, without calling the server", async () => {
    const update = vi.fn();
    const { user } = await openAccount(undefined, (r) => r.rpc(AccountService.method.updateProfile, update));
    await user.click(screen.getByRole("button", { name: "Edit Profile" }));
    const first = screen.getByLabelText("First name");
    await user.clear(first);
    await user.type(first, "Visit fnb-secure.co.za");
    const last = screen.getByLabelText("Last name");
    await user.clear(last);
    await user.type(last, "Nkosi‮");
    await user.click(screen.getByRole("button", { name: "Save Changes" }));

    await vi.waitFor(() => expect(first).toHaveAttribute("aria-invalid", "true"));
    expect(first).toHaveAccessibleDescription("Names can't contain a web address.");
    expect(last).toHaveAccessibleDescription("Names may only contain letters, spaces, apostrophes, hyphens and full stops.");
    expect(update).not.toHaveBeenCalled();

    await user.clear(first);
    await user.type(first, "J.R.R.");
    await user.clear(last);
    await user.type(last, "St. John");
    await user.click(screen.getByRole("button", { name: "Save Changes" }));
    await expectToast("Profile updated", "Your profile information has been updated successfully.");
  });

  it("saves the profile, says so, returns to view mode and updates the badge", async () => {
    let received: UpdateProfileRequest | undefined;
    const { user } = await openAccount({ firstName: "Thandi", lastName: "Mokoena" }, (r) =>
      r.rpc(AccountService.method.updateProfile, (request) => {
        received = request;
        return create(UpdateProfileResponseSchema, {
          profile: { firstName: request.firstName, lastName: request.lastName, phoneNumber: "+27821234567" },
        });
      }),
    );
    await user.click(screen.getByRole("button", { name: "Edit Profile" }));
    const phone = screen.getByLabelText("Phone number");
    expect(phone).toHaveAttribute("placeholder", "+27 XX XXX XXXX");
    await user.clear(screen.getByLabelText("First name"));
    await user.type(screen.getByLabelText("First name"), "Thandiwe");
    await user.type(phone, "082 123 4567");
    await user.click(screen.getByRole("button", { name: "Save Changes" }));

    await expectToast("Profile updated", "Your profile information has been updated successfully.");
    expect(received).toMatchObject({ firstName: "Thandiwe", lastName: "Mokoena", phoneNumber: "082 123 4567" });
    expect(screen.queryByRole("button", { name: "Save Changes" })).not.toBeInTheDocument();
    const panel = screen.getByRole("tabpanel", { name: "Profile" });
    expect(within(panel).getByText("+27 82 123 4567")).toBeInTheDocument();
    expect(screen.getByRole("group", { name: "Signed in as Thandiwe Mokoena" })).toBeInTheDocument();
  });

  it("marks an invalid phone under the field, without calling the server", async () => {
    const update = vi.fn();
    const { user } = await openAccount(undefined, (r) => r.rpc(AccountService.method.updateProfile, update));
    await user.click(screen.getByRole("button", { name: "Edit Profile" }));
    const phone = screen.getByLabelText("Phone number");
    await user.clear(phone);
    await user.type(phone, "12345");
    await user.click(screen.getByRole("button", { name: "Save Changes" }));

    expect(phone).toHaveAttribute("aria-invalid", "true");
    expect(phone).toHaveAccessibleDescription(expect.stringContaining("Please enter a valid South African mobile number."));
    expect(phone).toHaveFocus();
    expect(update).not.toHaveBeenCalled();
  });

  it("allows an empty phone", async () => {
    let received: UpdateProfileRequest | undefined;
    const { user } = await openAccount(undefined, (r) =>
      r.rpc(AccountService.method.updateProfile, (request) => {
        received = request;
        return create(UpdateProfileResponseSchema, { profile: { firstName: request.firstName, lastName: request.lastName } });
      }),
    );
    await user.click(screen.getByRole("button", { name: "Edit Profile" }));
    await user.clear(screen.getByLabelText("Phone number"));
    await user.click(screen.getByRole("button", { name: "Save Changes" }));
    await expectToast("Profile updated", "Your profile information has been updated successfully.");
    expect(received).toMatchObject({ phoneNumber: "" });
  });

  it("shows the server's phone violation under the field", async () => {
    const { user } = await openAccount(undefined, (r) =>
      r.rpc(AccountService.method.updateProfile, () => {
        throw errorWithDetails(
          "invalid profile",
          Code.InvalidArgument,
          badRequestDetail([{ field: "phone_number", description: "Please enter a valid South African mobile number." }]),
        );
      }),
    );
    await user.click(screen.getByRole("button", { name: "Edit Profile" }));
    await user.click(screen.getByRole("button", { name: "Save Changes" }));
    const phone = screen.getByLabelText("Phone number");
    await vi.waitFor(() => expect(phone).toHaveAttribute("aria-invalid", "true"));
    expect(phone).toHaveAccessibleDescription(expect.stringContaining("Please enter a valid South African mobile number."));
  });

  it("Cancel goes back to view mode without saving", async () => {
    const update = vi.fn();
    const { user } = await openAccount(undefined, (r) => r.rpc(AccountService.method.updateProfile, update));
    await user.click(screen.getByRole("button", { name: "Edit Profile" }));
    // The button goes as the form opens: the focus goes to the form's first field, not the page.
    await vi.waitFor(() => expect(screen.getByLabelText("First name")).toHaveFocus());
    await user.type(screen.getByLabelText("First name"), "xyz");
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.getByRole("button", { name: "Edit Profile" })).toBeInTheDocument();
    // And back to the button the form replaced, so Tab goes on from there.
    await vi.waitFor(() => expect(screen.getByRole("button", { name: "Edit Profile" })).toHaveFocus());
    expect(screen.getByRole("tabpanel", { name: "Profile" })).toHaveTextContent("Thandi");
    expect(update).not.toHaveBeenCalled();
  });

  it.each([
    [new ConnectError("Please enter a valid South African mobile number.", Code.InvalidArgument), "Please enter a valid South African mobile number."],
    [new ConnectError("Failed to fetch", Code.Unavailable), "Failed to update profile. Please try again."],
  ])("shows 'Update failed' with the server's message or the fallback (%s)", async (error, message) => {
    const { user } = await openAccount(undefined, (r) =>
      r.rpc(AccountService.method.updateProfile, () => {
        throw error;
      }),
    );
    await user.click(screen.getByRole("button", { name: "Edit Profile" }));
    await user.click(screen.getByRole("button", { name: "Save Changes" }));
    await expectToast("Update failed", message);
    expect(screen.getByRole("button", { name: "Save Changes" })).toBeInTheDocument(); // still editing
  });
});
