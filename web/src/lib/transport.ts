import type { Interceptor, Transport } from "@connectrpc/connect";

/**
 * Every call starts a W3C trace in the browser: a `traceparent` header (version 00, a random
 * 16-byte trace id and 8-byte span id, flags 01 = sampled). The BFF trusts it, so its server
 * span becomes a child of this request and the trace then follows the transfer through the
 * services, the database, the outbox, NATS and the worker back to the live stream. A header
 * already set by the caller is left alone.
 *
 * The interceptor is a plain function (the import above is type-only), so it adds nothing to
 * the landing page's first load.
 */
export const traceparentInterceptor: Interceptor = (next) => async (req) => {
  if (!req.header.has("traceparent")) {
    req.header.set("traceparent", newTraceparent());
  }
  return next(req);
};

/** A fresh `traceparent` value: `00-<32 hex trace id>-<16 hex span id>-01`. */
export function newTraceparent(): string {
  const ids = new Uint8Array(24);
  // All-zero ids are invalid (the receiver would start a new trace); redraw in that
  // one-in-2^64 case rather than send one.
  do {
    crypto.getRandomValues(ids);
  } while (allZero(ids.subarray(0, 16)) || allZero(ids.subarray(16)));
  return `00-${hex(ids.subarray(0, 16))}-${hex(ids.subarray(16))}-01`;
}

function allZero(bytes: Uint8Array): boolean {
  return bytes.every((b) => b === 0);
}

function hex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

/**
 * The one Connect transport of the app. The BFF serves this client and the Connect handlers
 * on the same origin; the session travels in an HttpOnly cookie, so no credentials are handled
 * here.
 *
 * It is created once, on the first call: the Connect and protobuf runtime it needs (≈35 kB
 * gzipped) is downloaded then, so the landing page, which calls nothing, starts without it.
 *
 * It speaks Connect's binary protobuf, not JSON: encoding JSON (and compressing it) was the
 * largest share of the BFF's CPU on the history page, and binary is smaller on the wire too.
 * On-call reads requests in the traces, not in the browser's network panel.
 */
let connectTransport: Promise<Transport> | undefined;

function load(): Promise<Transport> {
  connectTransport ??= import("@connectrpc/connect-web").then(({ createConnectTransport }) =>
    createConnectTransport({
      baseUrl: window.location.origin,
      useBinaryFormat: true,
      interceptors: [traceparentInterceptor],
    }),
  );
  return connectTransport;
}

export const transport: Transport = {
  async unary(method, signal, timeoutMs, header, input, contextValues) {
    return (await load()).unary(method, signal, timeoutMs, header, input, contextValues);
  },
  async stream(method, signal, timeoutMs, header, input, contextValues) {
    return (await load()).stream(method, signal, timeoutMs, header, input, contextValues);
  },
};
