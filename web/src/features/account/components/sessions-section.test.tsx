import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import {
  AccountService,
  GetProfileResponseSchema,
  ListPasskeysResponseSchema,
  ListSessionsResponseSchema,
  SecurityService,
  SessionInfoSchema,
} from "@/gen/thumela/bff/v1/bff_pb";
import type { SessionInfo } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";
import { lastSeen, sessionName } from "./sessions-section";

const minutesAgo = (n: number) => timestampFromDate(new Date(Date.now() - n * 60_000));

const here = create(SessionInfoSchema, {
  id: "s-here",
  browser: "Chrome",
  os: "Windows",
  deviceType: "desktop",
  createdAt: timestampFromDate(new Date("2026-03-02T08:00:00Z")),
  lastSeenAt: minutesAgo(0),
  current: true,
  method: "password",
});
const phone = create(SessionInfoSchema, {
  id: "s-phone",
  browser: "Safari",
  os: "iOS",
  deviceType: "mobile",
  createdAt: timestampFromDate(new Date("2026-03-01T18:30:00Z")),
  lastSeenAt: minutesAgo(5),
  method: "passkey",
});
const laptop = create(SessionInfoSchema, {
  id: "s-laptop",
  browser: "Firefox",
  os: "Linux",
  deviceType: "desktop",
  createdAt: timestampFromDate(new Date("2026-02-20T10:00:00Z")),
  lastSeenAt: minutesAgo(180),
  method: "password",
});

interface Backend {
  sessions: SessionInfo[];
  list?: () => never;
  revoke?: () => never;
  revoked: string[];
  othersRevoked: number;
}

async function openSecurity(backend: Backend) {
  const app = renderApp("/account", {
    session: SIGNED_IN,
    routes: (r: ConnectRouter) => {
      r.rpc(AccountService.method.getProfile, () => create(GetProfileResponseSchema, { profile: SIGNED_IN.profile }));
      r.service(SecurityService, {
        listPasskeys: () => create(ListPasskeysResponseSchema, { passkeys: [] }),
        listSessions: () => backend.list?.() ?? create(ListSessionsResponseSchema, { sessions: backend.sessions }),
        revokeSession: ({ sessionId }) => {
          backend.revoke?.();
          if (!backend.sessions.some((s) => s.id === sessionId && !s.current)) {
            throw new ConnectError("That session is not signed in any more.", Code.NotFound);
          }
          backend.revoked.push(sessionId);
          backend.sessions = backend.sessions.filter((s) => s.id !== sessionId);
          return {};
        },
        revokeOtherSessions: () => {
          const n = backend.sessions.filter((s) => !s.current).length;
          backend.othersRevoked += n;
          backend.sessions = backend.sessions.filter((s) => s.current);
          return { revoked: n };
        },
      });
    },
  });
  await screen.findByRole("heading", { level: 1, name: "Account" });
  await app.user.click(screen.getByRole("tab", { name: "Security" }));
  await screen.findByRole("heading", { name: "Signed-in sessions" });
  return app;
}

const backendWith = (...sessions: SessionInfo[]): Backend => ({ sessions, revoked: [], othersRevoked: 0 });

describe("signed-in sessions in Account -> Security", () => {
  it("lists each session's device, browser, times and which one is this one", async () => {
    await openSecurity(backendWith(here, phone, laptop));
    const list = await screen.findByRole("list", { name: "Your signed-in sessions" });
    const rows = within(list).getAllByRole("listitem");
    expect(rows).toHaveLength(3);

    expect(within(rows[0]).getByText("Chrome on Windows")).toBeInTheDocument();
    expect(within(rows[0]).getByText("This device")).toBeInTheDocument();
    expect(within(rows[0]).getByRole("img", { name: "Computer" })).toBeInTheDocument();
    expect(within(rows[0]).getByText(/Signed in 0?2 Mar 2026, 10:00 with your password/)).toBeInTheDocument();
    expect(within(rows[0]).getByText(/Active now/)).toBeInTheDocument();
    expect(within(rows[0]).queryByRole("button")).toBeNull();

    expect(within(rows[1]).getByText("Safari on iOS")).toBeInTheDocument();
    expect(within(rows[1]).getByRole("img", { name: "Phone" })).toBeInTheDocument();
    expect(within(rows[1]).getByText(/with a passkey/)).toBeInTheDocument();
    expect(within(rows[1]).getByText(/Last seen 5 minutes ago/)).toBeInTheDocument();
    expect(within(rows[1]).queryByText("This device")).toBeNull();
    expect(within(rows[1]).getByRole("button", { name: "Sign out Safari on iOS" })).toBeInTheDocument();

    expect(within(rows[2]).getByText(/Last seen 3 hours ago/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Sign out all other sessions" })).toBeInTheDocument();
  });

  it("signs one session out and reloads the list", async () => {
    const backend = backendWith(here, phone, laptop);
    const { user } = await openSecurity(backend);
    await user.click(await screen.findByRole("button", { name: "Sign out Firefox on Linux" }));
    await expectToast("Session signed out", "Firefox on Linux is no longer signed in.");
    expect(backend.revoked).toEqual(["s-laptop"]);
    await waitFor(() => expect(screen.queryByText("Firefox on Linux")).toBeNull());
    expect(screen.getByText("Safari on iOS")).toBeInTheDocument();
  });

  it("treats a session already gone as signed out", async () => {
    const backend = backendWith(here, phone);
    const { user } = await openSecurity(backend);
    const button = await screen.findByRole("button", { name: "Sign out Safari on iOS" });
    backend.sessions = [here]; // signed out elsewhere meanwhile
    await user.click(button);
    await expectToast("Session signed out", "Safari on iOS is no longer signed in.");
    await waitFor(() => expect(screen.queryByText("Safari on iOS")).toBeNull());
  });

  it("says why a sign-out failed", async () => {
    const backend = backendWith(here, phone);
    backend.revoke = () => {
      throw new ConnectError("down", Code.Unavailable);
    };
    const { user } = await openSecurity(backend);
    await user.click(await screen.findByRole("button", { name: "Sign out Safari on iOS" }));
    await expectToast("Sign out failed");
    expect(screen.getByText("Safari on iOS")).toBeInTheDocument();
  });

  it("signs out all other sessions after a confirmation (Cancel keeps them)", async () => {
    const backend = backendWith(here, phone, laptop);
    const { user } = await openSecurity(backend);
    await user.click(await screen.findByRole("button", { name: "Sign out all other sessions" }));
    let dialog = await screen.findByRole("alertdialog", { name: "Sign out all other sessions?" });
    expect(within(dialog).getByText(/2 other browsers and devices will be signed out/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(backend.othersRevoked).toBe(0);

    await user.click(screen.getByRole("button", { name: "Sign out all other sessions" }));
    dialog = await screen.findByRole("alertdialog");
    await user.click(within(dialog).getByRole("button", { name: "Sign out all" }));
    await expectToast("Other sessions signed out", "2 other sessions are no longer signed in.");
    expect(backend.othersRevoked).toBe(2);
    expect(await screen.findByText("You're not signed in anywhere else.")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Sign out all other sessions" })).toBeNull();
    expect(screen.getByText("Chrome on Windows")).toBeInTheDocument();
  });

  it("offers to try again when the list fails", async () => {
    const backend = backendWith();
    backend.list = () => {
      throw new ConnectError("down", Code.Unavailable);
    };
    await openSecurity(backend);
    const alert = await screen.findByRole("alert", {}, { timeout: 5000 });
    expect(within(alert).getByText("We couldn't load your sessions.")).toBeInTheDocument();
    expect(within(alert).getByRole("button", { name: "Try again" })).toBeInTheDocument();
  });

  it("names sessions and last-seen times plainly", () => {
    const now = new Date("2026-03-02T12:00:00Z");
    expect(lastSeen(new Date("2026-03-02T11:59:30Z"), now)).toBe("just now");
    expect(lastSeen(new Date("2026-03-02T11:50:00Z"), now)).toBe("10 minutes ago");
    expect(lastSeen(new Date("2026-03-02T09:00:00Z"), now)).toBe("3 hours ago");
    expect(lastSeen(new Date("2026-02-27T09:00:00Z"), now)).toMatch(/27 Feb 2026/);
    expect(sessionName(create(SessionInfoSchema, { browser: "Edge" }))).toBe("Edge");
    expect(sessionName(create(SessionInfoSchema, {}))).toBe("Unknown device");
  });
});
