/**
 * Passkeys (WebAuthn) in the browser: @simplewebauthn/browser runs the browser's ceremonies;
 * the BFF relays the JSON to identity, which verifies it. Nothing here sees a secret: the
 * private key stays in the authenticator and the challenge ids travel in HttpOnly cookies.
 *
 * Step-up (before money moves) is for the send-money wizard:
 *
 *   const transport = useTransport();           // from @connectrpc/connect-query
 *   const outcome = await stepUp(transport);     // may show the browser's passkey prompt
 *   if (outcome.status === "password") {
 *     // the user has no passkey (or this browser cannot use one): ask for the password, then
 *     await stepUpWithPassword(transport, password);  // rejects with a ConnectError: InvalidArgument
 *                                                     // "Incorrect password. Please try again."
 *                                                     // (field "password"), or ResourceExhausted
 *   }
 *   // stepped up: send CreateTransfer again with the same idempotency key within 5 minutes
 *
 * stepUp rejects with a PasskeyCancelledError when the user dismisses the prompt (offer to
 * try again or to use the password instead: stepUpWithPassword works for every user), and
 * with a ConnectError when the server refuses (PermissionDenied: the passkey did not verify;
 * FailedPrecondition: the request expired).
 */
import { createClient } from "@connectrpc/connect";
import type { Transport } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  WebAuthnAbortService,
  WebAuthnError,
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  startRegistration,
} from "@simplewebauthn/browser";
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { AuthService, SecurityService } from "@/gen/thumela/bff/v1/bff_pb";
import type { FinishPasskeySignInResponse, Passkey } from "@/gen/thumela/bff/v1/bff_pb";

/** The user closed or timed out the browser's passkey prompt, or another prompt replaced it. */
export class PasskeyCancelledError extends Error {
  constructor(cause?: unknown) {
    super("The passkey prompt was closed.", { cause });
    this.name = "PasskeyCancelledError";
  }
}

/** This browser already holds a passkey of this account (the server asked to exclude it). */
export class PasskeyAlreadyRegisteredError extends Error {
  constructor(cause?: unknown) {
    super("This device already has a passkey for your account.", { cause });
    this.name = "PasskeyAlreadyRegisteredError";
  }
}

/** Whether the browser can use passkeys at all. */
export function passkeysSupported(): boolean {
  try {
    return browserSupportsWebAuthn();
  } catch {
    return false;
  }
}

/** Whether the browser offers passkeys in the e-mail field's autofill (conditional mediation). */
export async function passkeyAutofillSupported(): Promise<boolean> {
  try {
    return await browserSupportsWebAuthnAutofill();
  } catch {
    return false;
  }
}

/** Stops a pending passkey prompt (the autofill's, when the page goes away). */
export function cancelPasskeyPrompt(): void {
  WebAuthnAbortService.cancelCeremony();
}

/**
 * The browser's errors that mean "the user did not go ahead": NotAllowedError (dismissed, timed
 * out, no matching passkey) and AbortError (replaced by another prompt).
 */
function cancelled(error: unknown): boolean {
  if (error instanceof WebAuthnError) {
    if (error.code === "ERROR_CEREMONY_ABORTED") return true;
    const cause = error.cause as { name?: string } | undefined;
    return cause?.name === "NotAllowedError" || cause?.name === "AbortError";
  }
  const name = (error as { name?: string } | null)?.name;
  return name === "NotAllowedError" || name === "AbortError";
}

function rethrow(error: unknown): never {
  if (error instanceof WebAuthnError && error.code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED") {
    throw new PasskeyAlreadyRegisteredError(error);
  }
  if (cancelled(error)) throw new PasskeyCancelledError(error);
  throw error;
}

/** Adds a passkey for the signed-in user: the browser's creation prompt, then the server's check. */
export async function registerPasskey(transport: Transport, name = ""): Promise<Passkey | undefined> {
  const security = createClient(SecurityService, transport);
  const begin = await security.beginPasskeyRegistration({});
  const optionsJSON = JSON.parse(begin.optionsJson) as PublicKeyCredentialCreationOptionsJSON;
  let credential;
  try {
    credential = await startRegistration({ optionsJSON });
  } catch (error) {
    rethrow(error);
  }
  const finish = await security.finishPasskeyRegistration({ credentialJson: JSON.stringify(credential), name });
  return finish.passkey;
}

/**
 * Signs in with a passkey, no e-mail asked. With `autofill`, the request waits in the e-mail
 * field's autofill (the field needs autocomplete="username webauthn") until the user picks a
 * passkey there; otherwise the browser's passkey prompt opens at once. Resolves with the
 * signed-in user and profile (the session cookie is set by the BFF).
 */
export async function signInWithPasskey(
  transport: Transport,
  { autofill = false }: { autofill?: boolean } = {},
): Promise<FinishPasskeySignInResponse> {
  const authService = createClient(AuthService, transport);
  const begin = await authService.beginPasskeySignIn({});
  const optionsJSON = JSON.parse(begin.optionsJson) as PublicKeyCredentialRequestOptionsJSON;
  let credential;
  try {
    credential = await startAuthentication({ optionsJSON, useBrowserAutofill: autofill });
  } catch (error) {
    rethrow(error);
  }
  return authService.finishPasskeySignIn({ credentialJson: JSON.stringify(credential) });
}

/** A step-up that went through: transfers that need one are accepted until `until`. */
export type StepUpDone = { status: "done"; until?: Date };
/** What stepUp resolves to: done (with the passkey), or the password is needed. */
export type StepUpOutcome = StepUpDone | { status: "password" };

/**
 * Proves it is the user just before money moves. With a passkey on the account (and a browser
 * that can use it) it shows the browser's passkey prompt and finishes the step-up; otherwise it
 * resolves `{status: "password"}` and the caller asks for the password (stepUpWithPassword).
 * Rejects with PasskeyCancelledError when the prompt is dismissed, or a ConnectError.
 */
export async function stepUp(transport: Transport): Promise<StepUpOutcome> {
  const security = createClient(SecurityService, transport);
  const begin = await security.beginStepUp({});
  if (!begin.passkey || !passkeysSupported()) return { status: "password" };
  const optionsJSON = JSON.parse(begin.optionsJson) as PublicKeyCredentialRequestOptionsJSON;
  let credential;
  try {
    credential = await startAuthentication({ optionsJSON });
  } catch (error) {
    rethrow(error);
  }
  const finish = await security.finishStepUp({
    proof: { case: "passkeyCredentialJson", value: JSON.stringify(credential) },
  });
  return { status: "done", until: finish.steppedUpUntil ? timestampDate(finish.steppedUpUntil) : undefined };
}

/** Steps up with the account's password (any user may; it is checked as at sign-in). */
export async function stepUpWithPassword(transport: Transport, password: string): Promise<StepUpDone> {
  const security = createClient(SecurityService, transport);
  const finish = await security.finishStepUp({ proof: { case: "password", value: password } });
  return { status: "done", until: finish.steppedUpUntil ? timestampDate(finish.steppedUpUntil) : undefined };
}
