import type { Transport } from "@connectrpc/connect";

/**
 * The one Connect transport of the app. The BFF serves this client and the Connect handlers
 * on the same origin; the session travels in an HttpOnly cookie, so no credentials are handled
 * here.
 *
 * It is created once, on the first call: the Connect and protobuf runtime it needs (≈35 kB
 * gzipped) is downloaded then, so the landing page, which calls nothing, starts without it.
 */
let connectTransport: Promise<Transport> | undefined;

function load(): Promise<Transport> {
  connectTransport ??= import("@connectrpc/connect-web").then(({ createConnectTransport }) =>
    createConnectTransport({ baseUrl: window.location.origin }),
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
