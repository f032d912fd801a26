import type { Client } from "@connectrpc/connect";
import { ConnectError } from "@connectrpc/connect";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { StepUpPurpose, TransferStatus } from "@/gen/thumela/bff/v1/bff_pb";
import type { SecurityService, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";

/**
 * Step-up before money moves (docs/security-step-up.md). The transfers service refuses a
 * transfer above R1,000 or to a phone the sender has never paid unless the session proved it is
 * the sender in the last 5 minutes (SecurityService.FinishStepUp): it answers FailedPrecondition
 * with a google.rpc.ErrorInfo of reason STEP_UP_REQUIRED. The wizard predicts that answer, so
 * the sender is asked before 'Send Money' goes out, and treats the answer itself as the
 * backstop. This module is the one door to SecurityService's step-up calls (the wizard, the
 * voucher actions, the schedule dialog: CreateSchedule asks the same).
 */

/** Transfers above this many cents need a step-up: R1,000.00 itself does not. */
export const STEP_UP_ABOVE_CENTS = 100_000n;
export const STEP_UP_REASON = "STEP_UP_REQUIRED";
export const STEP_UP_DOMAIN = "transfers.thumela.co.za";
/** Identity's refusals (BeginPasskeyRegistration's STEP_UP_REQUIRED) carry this domain. */
export const IDENTITY_DOMAIN = "identity.thumela.co.za";

/** How long before the server's end of the window this client stops counting on a step-up. */
const WINDOW_MARGIN_MS = 30_000;

/**
 * Until when (ms since the epoch) the last step-up of this page counts, as FinishStepUp said.
 * Only spares the sender a second question within the window; the server decides.
 */
let steppedUpUntil = 0;

export function rememberStepUp(untilMs: number): void {
  steppedUpUntil = untilMs;
}

export function forgetStepUp(): void {
  steppedUpUntil = 0;
}

export function recentlySteppedUp(now = Date.now()): boolean {
  return now < steppedUpUntil - WINDOW_MARGIN_MS;
}

/**
 * Whether the server answered that the transfer needs a step-up: the ErrorInfo detail's reason
 * (google.rpc.ErrorInfo: reason = 1, domain = 2), read field by field as lib/errors reads the
 * other google.rpc details.
 */
export function isStepUpRequired(error: unknown): boolean {
  return hasErrorInfo(error, STEP_UP_REASON);
}

/**
 * Whether identity refused to add a passkey for want of a step-up for that purpose (none yet,
 * expired, or spent by the passkey added before).
 */
export function isPasskeyStepUpRequired(error: unknown): boolean {
  return hasErrorInfo(error, STEP_UP_REASON, IDENTITY_DOMAIN);
}

/**
 * Whether error carries a google.rpc.ErrorInfo with reason in wantedDomain, by default the
 * transfers domain (the transfers service's refusals that the wizard answers: STEP_UP_REQUIRED,
 * RECIPIENT_CONFIRMATION_REQUIRED).
 */
export function hasErrorInfo(error: unknown, wanted: string, wantedDomain: string = STEP_UP_DOMAIN): boolean {
  if (!(error instanceof ConnectError)) return false;
  for (const detail of error.details) {
    if (!("type" in detail) || detail.type !== "google.rpc.ErrorInfo" || !(detail.value instanceof Uint8Array)) continue;
    try {
      const info = new BinaryReader(detail.value);
      let reason = "";
      let domain = "";
      while (info.pos < info.len) {
        const [field, wireType] = info.tag();
        if (field === 1 && wireType === WireType.LengthDelimited) reason = info.string();
        else if (field === 2 && wireType === WireType.LengthDelimited) domain = info.string();
        else info.skip(wireType);
      }
      if (reason === wanted && domain === wantedDomain) return true;
    } catch {
      // A malformed detail says nothing.
    }
  }
  return false;
}

/**
 * Whether the sender has a completed transfer to phone (E.164): the transfers service counts a
 * phone as paid once a transfer to it was charged. undefined when the history cannot be read
 * (the server's answer then decides).
 */
export async function paidBefore(transfers: Client<typeof TransfersService>, phone: string): Promise<boolean | undefined> {
  try {
    const res = await transfers.listTransfers({ query: phone, status: TransferStatus.COMPLETED, page: 1, pageSize: 10 });
    return res.transfers.some((t) => t.recipientPhone === phone);
  } catch {
    return undefined;
  }
}

/**
 * Whether a transfer of amountCents to phone (E.164, or undefined when the wizard could not
 * read it) will need a step-up, before asking the server: above R1,000, or to a phone not in the
 * sender's completed transfers, unless this page stepped up moments ago.
 */
export async function predictStepUp(
  transfers: Client<typeof TransfersService>,
  amountCents: bigint,
  phone: string | undefined,
): Promise<boolean> {
  if (recentlySteppedUp()) return false;
  if (amountCents > STEP_UP_ABOVE_CENTS) return true;
  if (!phone) return false; // the server validates the phone and decides
  return (await paidBefore(transfers, phone)) === false;
}

/** How the sender proves it is them: a passkey (with its request options) or the password. */
export type StepUpMethod = { kind: "passkey"; optionsJson: string } | { kind: "password" };

/** Whether this browser can use a passkey at all (WebAuthn); without it, the password. */
function webAuthnAvailable(): boolean {
  return typeof window !== "undefined" && typeof window.PublicKeyCredential === "function";
}

export async function beginStepUp(security: Client<typeof SecurityService>): Promise<StepUpMethod> {
  const res = await security.beginStepUp({});
  return res.passkey && webAuthnAvailable() ? { kind: "passkey", optionsJson: res.optionsJson } : { kind: "password" };
}

/**
 * What a step-up is for: identity binds the proof to it. Sending money (the default) lets
 * transfers accept a transfer for 5 minutes; adding a passkey allows one BeginPasskeyRegistration
 * and nothing else, so it is not remembered here.
 */
export { StepUpPurpose };

async function finish(
  security: Client<typeof SecurityService>,
  proof: Parameters<Client<typeof SecurityService>["finishStepUp"]>[0]["proof"],
  purpose: StepUpPurpose,
) {
  const res = await security.finishStepUp({ proof, purpose });
  if (purpose !== StepUpPurpose.ADD_PASSKEY) {
    rememberStepUp(res.steppedUpUntil ? timestampMs(res.steppedUpUntil) : Date.now() + 4 * 60_000);
  }
}

export async function stepUpWithPassword(
  security: Client<typeof SecurityService>,
  password: string,
  purpose: StepUpPurpose = StepUpPurpose.SEND_MONEY,
): Promise<void> {
  await finish(security, { case: "password", value: password }, purpose);
}

/**
 * Asks the browser for the passkey (WebAuthn get) with the options BeginStepUp gave and sends
 * the assertion. @simplewebauthn/browser is loaded only here, when a passkey is used.
 */
export async function stepUpWithPasskey(
  security: Client<typeof SecurityService>,
  optionsJson: string,
  purpose: StepUpPurpose = StepUpPurpose.SEND_MONEY,
): Promise<void> {
  const { startAuthentication } = await import("@simplewebauthn/browser");
  const parsed = JSON.parse(optionsJson) as { publicKey?: unknown };
  // Identity answers the options object itself; accept one wrapped in "publicKey" too.
  const optionsJSON = (parsed.publicKey ?? parsed) as Parameters<typeof startAuthentication>[0]["optionsJSON"];
  const credential = await startAuthentication({ optionsJSON });
  await finish(security, { case: "passkeyCredentialJson", value: JSON.stringify(credential) }, purpose);
}
