import { Code, ConnectError } from "@connectrpc/connect";

// Codes that mean "no usable answer from the server" (network down, proxy error, aborted):
// their text comes from the browser or a proxy, not from Thumela, so the screen's own
// fallback wording is shown instead.
const TRANSPORT_CODES = new Set([Code.Unknown, Code.Unavailable, Code.Canceled]);

/** The message to show for a failed call: the server's message when there is one, else the fallback. */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ConnectError && !TRANSPORT_CODES.has(error.code)) {
    return error.rawMessage.trim() || fallback;
  }
  return fallback;
}

export function hasCode(error: unknown, code: Code): boolean {
  return error instanceof ConnectError && error.code === code;
}
