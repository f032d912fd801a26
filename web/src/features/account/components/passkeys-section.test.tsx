import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import {
  AccountService,
  GetProfileResponseSchema,
  ListPasskeysResponseSchema,
  ListSessionsResponseSchema,
  PasskeySchema,
  SecurityService,
} from "@/gen/thumela/bff/v1/bff_pb";
import type { Passkey } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";

const browser = vi.hoisted(() => ({ startRegistration: vi.fn() }));

vi.mock("@simplewebauthn/browser", async (importOriginal) => {
  const real = await importOriginal<typeof import("@simplewebauthn/browser")>();
  return { ...real, browserSupportsWebAuthn: () => true, startRegistration: browser.startRegistration };
});

const laptop = create(PasskeySchema, {
  id: "pk-1",
  name: "Chrome on Windows",
  createdAt: timestampFromDate(new Date("2026-03-02T08:00:00Z")),
  lastUsedAt: timestampFromDate(new Date("2026-03-10T08:00:00Z")),
});

interface Backend {
  passkeys: Passkey[];
  list?: () => never;
  deleted: string[];
  finished: string[];
}

async function openSecurity(backend: Backend) {
  const app = renderApp("/account", {
    session: SIGNED_IN,
    routes: (r: ConnectRouter) => {
      r.rpc(AccountService.method.getProfile, () => create(GetProfileResponseSchema, { profile: SIGNED_IN.profile }));
      r.service(SecurityService, {
        // The sessions section shares the tab; it is tested on its own.
        listSessions: () => create(ListSessionsResponseSchema, { sessions: [] }),
        listPasskeys: () => backend.list?.() ?? create(ListPasskeysResponseSchema, { passkeys: backend.passkeys }),
        deletePasskey: ({ passkeyId }) => {
          backend.deleted.push(passkeyId);
          backend.passkeys = backend.passkeys.filter((p) => p.id !== passkeyId);
          return {};
        },
        beginPasskeyRegistration: () => ({ optionsJson: JSON.stringify({ challenge: "Y2g", rp: { name: "Thumela" } }) }),
        finishPasskeyRegistration: ({ credentialJson }) => {
          backend.finished.push(credentialJson);
          const added = create(PasskeySchema, { id: "pk-2", name: "Safari on iPhone", createdAt: timestampFromDate(new Date()) });
          backend.passkeys = [...backend.passkeys, added];
          return { passkey: added };
        },
      });
    },
  });
  await screen.findByRole("heading", { level: 1, name: "Account" });
  await app.user.click(screen.getByRole("tab", { name: "Security" }));
  await screen.findByRole("heading", { name: "Passkeys" });
  return app;
}

describe("passkeys in Account -> Security", { timeout: 20_000 }, () => {
  beforeEach(() => browser.startRegistration.mockReset());

  it("lists passkeys with when they were added and last used", async () => {
    await openSecurity({ passkeys: [laptop], deleted: [], finished: [] });
    const list = await screen.findByRole("list", { name: "Your passkeys" });
    expect(within(list).getByText("Chrome on Windows")).toBeInTheDocument();
    expect(within(list).getByText(/Added 0?2 Mar 2026/)).toBeInTheDocument();
    expect(within(list).getByText(/Last used 10 Mar 2026/)).toBeInTheDocument();
  });

  it("says when there are none", async () => {
    await openSecurity({ passkeys: [], deleted: [], finished: [] });
    expect(await screen.findByText("You have no passkeys yet.")).toBeInTheDocument();
  });

  it("offers to try again when the list fails", async () => {
    await openSecurity({
      passkeys: [],
      deleted: [],
      finished: [],
      list: () => {
        throw new ConnectError("down", Code.Unavailable);
      },
    });
    // (The sessions card beside it has its own alert: this test routes no sessions.)
    const alert = (await screen.findByText("We couldn't load your passkeys.")).closest("[role=alert]") as HTMLElement;
    expect(alert).not.toBeNull();
    expect(within(alert).getByRole("button", { name: "Try again" })).toBeInTheDocument();
  });

  it("removes a passkey after a confirmation (Cancel keeps it)", async () => {
    const backend: Backend = { passkeys: [laptop], deleted: [], finished: [] };
    const { user } = await openSecurity(backend);
    await user.click(await screen.findByRole("button", { name: "Remove Chrome on Windows" }));
    const dialog = await screen.findByRole("alertdialog", { name: "Remove passkey" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(backend.deleted).toEqual([]);
    await user.click(screen.getByRole("button", { name: "Remove Chrome on Windows" }));
    await user.click(within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Remove" }));
    await expectToast("Passkey removed", "Chrome on Windows can no longer be used to log in.");
    expect(backend.deleted).toEqual(["pk-1"]);
    expect(await screen.findByText("You have no passkeys yet.")).toBeInTheDocument();
  });

  it("adds a passkey with the browser's prompt, or says it was not added", async () => {
    const backend: Backend = { passkeys: [], deleted: [], finished: [] };
    const { user } = await openSecurity(backend);
    await screen.findByText("You have no passkeys yet.");

    browser.startRegistration.mockRejectedValueOnce(new DOMException("closed", "NotAllowedError"));
    await user.click(screen.getByRole("button", { name: "Add a passkey" }));
    await expectToast("Passkey not added", "The passkey prompt was closed before it finished.");
    expect(backend.finished).toEqual([]);

    browser.startRegistration.mockResolvedValueOnce({ id: "cred-2", type: "public-key" });
    await user.click(screen.getByRole("button", { name: "Add a passkey" }));
    await expectToast("Passkey added", "Safari on iPhone can now be used to log in");
    expect(browser.startRegistration).toHaveBeenLastCalledWith({ optionsJSON: { challenge: "Y2g", rp: { name: "Thumela" } } });
    expect(backend.finished).toEqual(['{"id":"cred-2","type":"public-key"}']);
    await waitFor(() => expect(screen.getByText("Safari on iPhone")).toBeInTheDocument());
  });
});
