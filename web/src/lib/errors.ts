import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { Code, ConnectError } from "@connectrpc/connect";

// Codes that mean "no usable answer from the server" (network down, proxy error, aborted):
// their text comes from the browser or a proxy, not from Thumela, so the screen's own
// fallback wording is shown instead.
const TRANSPORT_CODES = new Set([Code.Unknown, Code.Unavailable, Code.Canceled]);

/** The message to show for a failed call: the server's message when there is one, else the fallback. */
export function errorMessage(error: unknown, fallback: string): string {
  const limited = rateLimitMessage(error);
  if (limited) return limited;
  if (error instanceof ConnectError && !TRANSPORT_CODES.has(error.code)) {
    return error.rawMessage.trim() || fallback;
  }
  return fallback;
}

/**
 * "Too many attempts. Please try again in 12 seconds." (minutes from 90 seconds on): the BFF's
 * words (bff/internal/ratelimit), in the shape of identity's sign-in back-off.
 */
export function tooManyAttempts(seconds: number): string {
  const secs = Math.max(1, Math.ceil(seconds));
  if (secs < 60) return `Too many attempts. Please try again in ${secs} ${secs === 1 ? "second" : "seconds"}.`;
  const mins = secs <= 90 ? 1 : Math.ceil(secs / 60);
  return `Too many attempts. Please try again in ${mins} ${mins === 1 ? "minute" : "minutes"}.`;
}

/**
 * The text for the BFF's rate limit (ResourceExhausted with a retry delay in RetryInfo or the
 * Retry-After header, and either no message or its "Too many attempts." one); undefined for
 * anything else, so the services' own ResourceExhausted answers (a locked voucher, too many
 * wrong codes, a resend interval) keep their specific wording.
 */
export function rateLimitMessage(error: unknown): string | undefined {
  if (!(error instanceof ConnectError) || error.code !== Code.ResourceExhausted) return undefined;
  const message = error.rawMessage.trim();
  if (message !== "" && !message.startsWith("Too many attempts.")) return undefined;
  const seconds = retryAfterSeconds(error) ?? retryAfterHeader(error);
  if (seconds === undefined) return message || undefined;
  return tooManyAttempts(seconds);
}

// Retry-After in whole seconds (the BFF never sends the HTTP-date form).
function retryAfterHeader(error: ConnectError): number | undefined {
  const raw = error.metadata.get("Retry-After");
  if (raw === null || !/^\d+$/.test(raw.trim())) return undefined;
  return Number(raw.trim());
}

export function hasCode(error: unknown, code: Code): boolean {
  return error instanceof ConnectError && error.code === code;
}

// The services' standard error details (google.rpc.RetryInfo, google.rpc.BadRequest) arrive as
// raw protobuf bytes. The web client does not generate the google.rpc types (their descriptors
// would only add weight), so the two small messages are read field by field here.

type IncomingDetail = { type: string; value: Uint8Array };

function incomingDetails(error: unknown, type: string): Uint8Array[] {
  if (!(error instanceof ConnectError)) return [];
  return error.details
    .filter((d): d is IncomingDetail & typeof d => "type" in d && d.type === type && d.value instanceof Uint8Array)
    .map((d) => d.value);
}

/**
 * How long the server asked the caller to wait before trying again (google.rpc.RetryInfo's
 * retry_delay, a Duration), in seconds; undefined when the error carries none.
 */
export function retryAfterSeconds(error: unknown): number | undefined {
  for (const bytes of incomingDetails(error, "google.rpc.RetryInfo")) {
    try {
      const info = new BinaryReader(bytes);
      while (info.pos < info.len) {
        const [field, wireType] = info.tag();
        if (field !== 1 || wireType !== WireType.LengthDelimited) {
          info.skip(wireType);
          continue;
        }
        const duration = new BinaryReader(info.bytes());
        let seconds = 0;
        let nanos = 0;
        while (duration.pos < duration.len) {
          const [f, w] = duration.tag();
          if (f === 1 && w === WireType.Varint) seconds = Number(duration.int64());
          else if (f === 2 && w === WireType.Varint) nanos = duration.int32();
          else duration.skip(w);
        }
        return seconds + nanos / 1e9;
      }
    } catch {
      // A malformed detail says nothing.
    }
  }
  return undefined;
}

/** One invalid field of a request, as google.rpc.BadRequest lists it. */
export interface FieldViolation {
  field: string;
  description: string;
}

/** The field violations of an InvalidArgument answer (google.rpc.BadRequest), in order. */
export function fieldViolations(error: unknown): FieldViolation[] {
  const out: FieldViolation[] = [];
  for (const bytes of incomingDetails(error, "google.rpc.BadRequest")) {
    try {
      const request = new BinaryReader(bytes);
      while (request.pos < request.len) {
        const [field, wireType] = request.tag();
        if (field !== 1 || wireType !== WireType.LengthDelimited) {
          request.skip(wireType);
          continue;
        }
        const violation = new BinaryReader(request.bytes());
        const v: FieldViolation = { field: "", description: "" };
        while (violation.pos < violation.len) {
          const [f, w] = violation.tag();
          if (f === 1 && w === WireType.LengthDelimited) v.field = violation.string();
          else if (f === 2 && w === WireType.LengthDelimited) v.description = violation.string();
          else violation.skip(w);
        }
        out.push(v);
      }
    } catch {
      // A malformed detail says nothing.
    }
  }
  return out;
}
