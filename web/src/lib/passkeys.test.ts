import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createRouterTransport } from "@connectrpc/connect";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { FinishStepUpResponseSchema, SecurityService } from "@/gen/thumela/bff/v1/bff_pb";
import type { FinishStepUpRequest } from "@/gen/thumela/bff/v1/bff_pb";
import { PasskeyCancelledError, stepUp, stepUpWithPassword } from "./passkeys";

const browser = vi.hoisted(() => ({
  supported: true,
  startAuthentication: vi.fn(),
}));

vi.mock("@simplewebauthn/browser", async (importOriginal) => {
  const real = await importOriginal<typeof import("@simplewebauthn/browser")>();
  return {
    ...real,
    browserSupportsWebAuthn: () => browser.supported,
    startAuthentication: browser.startAuthentication,
  };
});

const until = new Date("2026-03-18T10:10:00Z");
const OPTIONS = { challenge: "Y2hhbGxlbmdl", rpId: "localhost", userVerification: "required" };

function backend(hasPasskey: boolean) {
  const finished: FinishStepUpRequest[] = [];
  const transport = createRouterTransport((router) => {
    router.service(SecurityService, {
      beginStepUp: () => ({ passkey: hasPasskey, optionsJson: hasPasskey ? JSON.stringify(OPTIONS) : "" }),
      finishStepUp: (req) => {
        finished.push(req);
        if (req.proof.case === "password" && req.proof.value !== "right") {
          throw new ConnectError("Incorrect password. Please try again.", Code.InvalidArgument);
        }
        return create(FinishStepUpResponseSchema, { steppedUpUntil: timestampFromDate(until) });
      },
    });
  });
  return { transport, finished };
}

describe("stepUp", () => {
  beforeEach(() => {
    browser.supported = true;
    browser.startAuthentication.mockReset();
  });

  it("asks for the password when the account has no passkey", async () => {
    const { transport, finished } = backend(false);
    await expect(stepUp(transport)).resolves.toEqual({ status: "password" });
    expect(browser.startAuthentication).not.toHaveBeenCalled();
    expect(finished).toHaveLength(0);
  });

  it("asks for the password when the browser cannot use passkeys", async () => {
    browser.supported = false;
    const { transport } = backend(true);
    await expect(stepUp(transport)).resolves.toEqual({ status: "password" });
  });

  it("runs the passkey prompt with the server's options and finishes with its answer", async () => {
    browser.startAuthentication.mockResolvedValue({ id: "cred-1", type: "public-key" });
    const { transport, finished } = backend(true);
    await expect(stepUp(transport)).resolves.toEqual({ status: "done", until });
    expect(browser.startAuthentication).toHaveBeenCalledWith({ optionsJSON: OPTIONS });
    expect(finished[0].proof).toEqual({ case: "passkeyCredentialJson", value: '{"id":"cred-1","type":"public-key"}' });
  });

  it("says the prompt was closed, and sends nothing", async () => {
    browser.startAuthentication.mockRejectedValue(new DOMException("closed", "NotAllowedError"));
    const { transport, finished } = backend(true);
    await expect(stepUp(transport)).rejects.toBeInstanceOf(PasskeyCancelledError);
    expect(finished).toHaveLength(0);
  });

  it("steps up with the password, and passes the server's refusal on", async () => {
    const { transport } = backend(false);
    await expect(stepUpWithPassword(transport, "right")).resolves.toEqual({ status: "done", until });
    await expect(stepUpWithPassword(transport, "wrong")).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: "Incorrect password. Please try again.",
    });
  });
});
