import { create } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
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
  StepUpPurpose,
} from "@/gen/thumela/bff/v1/bff_pb";
import { errorWithDetails } from "@/test/error-details";
import type { Passkey } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";

const browser = vi.hoisted(() => ({ startRegistration: vi.fn(), startAuthentication: vi.fn() }));

vi.mock("@simplewebauthn/browser", async (importOriginal) => {
  const real = await importOriginal<typeof import("@simplewebauthn/browser")>();
  return {
    ...real,
    browserSupportsWebAuthn: () => true,
    startRegistration: browser.startRegistration,
    startAuthentication: browser.startAuthentication,
  };
});

const GOOD_PASSWORD = "correct-horse-1";

/** Identity's refusal of a registration without a step-up for it. */
function stepUpRequired() {
  const value = new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .string("STEP_UP_REQUIRED")
    .tag(2, WireType.LengthDelimited)
    .string("identity.thumela.co.za")
    .finish();
  return errorWithDetails("Please confirm it's you before adding a passkey.", Code.FailedPrecondition, {
    type: "google.rpc.ErrorInfo",
    value,
  });
}

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
  /** Step-ups for adding a passkey that identity accepted and no passkey has spent yet. */
  proofs?: number;
  /** The purposes FinishStepUp was asked for, in order. */
  stepUps?: StepUpPurpose[];
  /** BeginStepUp offers a passkey. */
  hasPasskey?: boolean;
  begun?: number;
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
        // As identity does: no registration without an unspent step-up for it.
        beginStepUp: () =>
          backend.hasPasskey ? { passkey: true, optionsJson: JSON.stringify({ challenge: "c3Vkbw" }) } : { passkey: false },
        finishStepUp: ({ proof, purpose }) => {
          backend.stepUps = [...(backend.stepUps ?? []), purpose];
          if (proof.case === "password" && proof.value !== GOOD_PASSWORD) {
            throw new ConnectError("Incorrect password. Please try again.", Code.InvalidArgument);
          }
          if (purpose === StepUpPurpose.ADD_PASSKEY) backend.proofs = (backend.proofs ?? 0) + 1;
          return { steppedUpUntil: timestampFromDate(new Date(Date.now() + 5 * 60_000)) };
        },
        beginPasskeyRegistration: () => {
          backend.begun = (backend.begun ?? 0) + 1;
          if (!backend.proofs) throw stepUpRequired();
          return { optionsJson: JSON.stringify({ challenge: "Y2g", rp: { name: "Thumela" } }) };
        },
        finishPasskeyRegistration: ({ credentialJson }) => {
          if (!backend.proofs) throw stepUpRequired();
          backend.proofs -= 1;
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
  beforeEach(() => {
    browser.startRegistration.mockReset();
    browser.startAuthentication.mockReset();
  });

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
    await confirmWithPassword(user);
    await expectToast("Passkey not added", "The passkey prompt was closed before it finished.");
    expect(backend.finished).toEqual([]);

    // Within the confirmation's window a closed prompt is tried again without asking again.
    browser.startRegistration.mockResolvedValueOnce({ id: "cred-2", type: "public-key" });
    await user.click(screen.getByRole("button", { name: "Add a passkey" }));
    expect(screen.queryByRole("dialog", { name: "Confirm it's you" })).not.toBeInTheDocument();
    await expectToast("Passkey added", "Safari on iPhone can now be used to log in");
    expect(browser.startRegistration).toHaveBeenLastCalledWith({ optionsJSON: { challenge: "Y2g", rp: { name: "Thumela" } } });
    expect(backend.finished).toEqual(['{"id":"cred-2","type":"public-key"}']);
    await waitFor(() => expect(screen.getByText("Safari on iPhone")).toBeInTheDocument());
  });

  it("asks 'Confirm it's you' before the browser's prompt: Cancel adds nothing, a wrong password is said", async () => {
    const backend: Backend = { passkeys: [], deleted: [], finished: [] };
    const { user } = await openSecurity(backend);
    await screen.findByText("You have no passkeys yet.");
    const add = screen.getByRole("button", { name: "Add a passkey" });

    await user.click(add);
    let dialog = await screen.findByRole("dialog", { name: "Confirm it's you" });
    expect(dialog).toHaveAccessibleDescription("To keep your account safe, confirm it's you before adding a passkey.");
    const password = await within(dialog).findByLabelText("Password");
    await waitFor(() => expect(password).toHaveFocus());
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(add).toHaveFocus();
    expect(backend.begun ?? 0).toBe(0);
    expect(browser.startRegistration).not.toHaveBeenCalled();

    await user.click(add);
    dialog = await screen.findByRole("dialog", { name: "Confirm it's you" });
    await user.type(await within(dialog).findByLabelText("Password"), "wrong-password");
    await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
    const field = await within(dialog).findByLabelText("Password");
    await waitFor(() => expect(field).toHaveAccessibleDescription(/Incorrect password. Please try again./));
    expect(field).toHaveAttribute("aria-invalid", "true");
    expect(browser.startRegistration).not.toHaveBeenCalled();

    browser.startRegistration.mockResolvedValueOnce({ id: "cred-3", type: "public-key" });
    await user.type(field, GOOD_PASSWORD);
    await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
    await expectToast("Passkey added", "Safari on iPhone can now be used to log in");
    expect(backend.stepUps).toEqual([StepUpPurpose.ADD_PASSKEY, StepUpPurpose.ADD_PASSKEY]);
    expect(backend.finished).toEqual(['{"id":"cred-3","type":"public-key"}']);

    // The confirmation is spent: another passkey asks again.
    await user.click(screen.getByRole("button", { name: "Add a passkey" }));
    expect(await screen.findByRole("dialog", { name: "Confirm it's you" })).toBeInTheDocument();
  });

  it("asks again when the server says the confirmation is gone", async () => {
    const backend: Backend = { passkeys: [], deleted: [], finished: [] };
    const { user } = await openSecurity(backend);
    await screen.findByText("You have no passkeys yet.");
    browser.startRegistration.mockRejectedValueOnce(new DOMException("closed", "NotAllowedError"));
    await user.click(screen.getByRole("button", { name: "Add a passkey" }));
    await confirmWithPassword(user);
    await expectToast("Passkey not added", "The passkey prompt was closed before it finished.");

    backend.proofs = 0; // expired, or spent in another tab
    await user.click(screen.getByRole("button", { name: "Add a passkey" }));
    browser.startRegistration.mockResolvedValueOnce({ id: "cred-4", type: "public-key" });
    await confirmWithPassword(user);
    await expectToast("Passkey added", "Safari on iPhone can now be used to log in");
    expect(backend.finished).toEqual(['{"id":"cred-4","type":"public-key"}']);
  });

  it("confirms with a passkey the user already has", async () => {
    vi.stubGlobal("PublicKeyCredential", function PublicKeyCredential() {});
    try {
      const backend: Backend = { passkeys: [laptop], deleted: [], finished: [], hasPasskey: true };
      const { user } = await openSecurity(backend);
      await screen.findByText("Chrome on Windows");
      browser.startAuthentication.mockResolvedValueOnce({ id: "cred-1", rawId: "cred-1", type: "public-key", response: {} });
      browser.startRegistration.mockResolvedValueOnce({ id: "cred-5", type: "public-key" });
      await user.click(screen.getByRole("button", { name: "Add a passkey" }));
      const dialog = await screen.findByRole("dialog", { name: "Confirm it's you" });
      expect(await within(dialog).findByText(/Use a passkey you already have/)).toBeInTheDocument();
      await user.click(within(dialog).getByRole("button", { name: "Use passkey" }));
      await expectToast("Passkey added", "Safari on iPhone can now be used to log in");
      expect(browser.startAuthentication).toHaveBeenCalledWith({ optionsJSON: { challenge: "c3Vkbw" } });
      expect(backend.stepUps).toEqual([StepUpPurpose.ADD_PASSKEY]);
      expect(backend.finished).toEqual(['{"id":"cred-5","type":"public-key"}']);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

async function confirmWithPassword(user: Awaited<ReturnType<typeof openSecurity>>["user"]) {
  const dialog = await screen.findByRole("dialog", { name: "Confirm it's you" });
  await user.type(await within(dialog).findByLabelText("Password"), GOOD_PASSWORD);
  await user.click(within(dialog).getByRole("button", { name: "Confirm" }));
  await waitFor(() => expect(screen.queryByRole("dialog", { name: "Confirm it's you" })).not.toBeInTheDocument());
}
