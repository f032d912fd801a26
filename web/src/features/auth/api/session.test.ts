import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport } from "@connectrpc/connect";
import { TransportProvider, createConnectQueryKey } from "@connectrpc/connect-query";
import { QueryClientProvider } from "@tanstack/react-query";
import { act, renderHook, screen, waitFor } from "@testing-library/react";
import { createElement } from "react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { createAppQueryClient } from "@/app/provider";
import { AuthService, GetSessionResponseSchema } from "@/gen/thumela/bff/v1/bff_pb";
import { hasCode } from "@/lib/errors";
import { hasSessionHint } from "@/lib/session-hint";
import { SIGNED_IN, renderApp, setSessionHint } from "@/test/render-app";
import { useSession, useStoreSession } from "./session";
import { sessionQueryFilter } from "./session-key";

describe("sessionQueryFilter", () => {
  it("is connect-query's key prefix for GetSession", () => {
    expect(sessionQueryFilter.queryKey).toEqual(
      createConnectQueryKey({ schema: AuthService.method.getSession, cardinality: undefined }),
    );
  });
});

/** A BFF whose GetSession answers `state.session` (Unauthenticated without one) and counts the calls. */
function backend(session?: typeof SIGNED_IN) {
  const state = { session, calls: 0 };
  const transport = createRouterTransport((router) =>
    router.service(AuthService, {
      getSession: () => {
        state.calls++;
        if (!state.session) throw new ConnectError("not signed in", Code.Unauthenticated);
        return create(GetSessionResponseSchema, state.session);
      },
    }),
  );
  const queryClient = createAppQueryClient({ retry: false });
  const wrapper = ({ children }: { children: ReactNode }) =>
    createElement(TransportProvider, { transport }, createElement(QueryClientProvider, { client: queryClient }, children));
  return { state, queryClient, wrapper };
}

describe("useSession", () => {
  afterEach(() => setSessionHint(false));

  it("answers Unauthenticated without a request when the browser has no signed-in hint", async () => {
    const { state, wrapper } = backend(SIGNED_IN);
    const { result } = renderHook(() => useSession(), { wrapper });
    await waitFor(() => expect(result.current.isError).toBe(true));
    expect(hasCode(result.current.error, Code.Unauthenticated)).toBe(true);
    expect(state.calls).toBe(0);
  });

  it("asks the BFF when the hint is there, and the BFF decides", async () => {
    setSessionHint(true);
    const signedIn = backend(SIGNED_IN);
    const { result } = renderHook(() => useSession(), { wrapper: signedIn.wrapper });
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(result.current.data?.user?.email).toBe(SIGNED_IN.user?.email);
    expect(signedIn.state.calls).toBe(1);

    // A hint that outlived its session: the BFF's answer stands.
    const ended = backend(undefined);
    const stale = renderHook(() => useSession(), { wrapper: ended.wrapper });
    await waitFor(() => expect(stale.result.current.isError).toBe(true));
    expect(hasCode(stale.result.current.error, Code.Unauthenticated)).toBe(true);
    expect(ended.state.calls).toBe(1);
  });

  it("reads the hint at each fetch: after a sign-in elsewhere sets it, the next check asks", async () => {
    const { state, queryClient, wrapper } = backend(SIGNED_IN);
    const { result } = renderHook(() => useSession(), { wrapper });
    await waitFor(() => expect(result.current.isError).toBe(true));

    setSessionHint(true);
    await act(() => queryClient.invalidateQueries(sessionQueryFilter));
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(state.calls).toBe(1);
  });

  it("shows what SignIn answered (useStoreSession) under the same key, without asking", async () => {
    const { state, wrapper } = backend(SIGNED_IN);
    const { result } = renderHook(() => ({ session: useSession(), store: useStoreSession() }), { wrapper });
    await waitFor(() => expect(result.current.session.isError).toBe(true));

    await act(() => result.current.store(create(GetSessionResponseSchema, SIGNED_IN)));
    await waitFor(() => expect(result.current.session.data?.user?.id).toBe(SIGNED_IN.user?.id));
    expect(state.calls).toBe(0);
  });
});

describe("the route guard with a hint that outlived its session", () => {
  afterEach(() => setSessionHint(false));

  it("asks once, and the Unauthenticated answer sends the visitor to log in", async () => {
    let asked = 0;
    const { router } = renderApp("/dashboard", {
      signedInHint: true,
      routes: (r) =>
        r.rpc(AuthService.method.getSession, () => {
          asked++;
          // As the BFF's ClearStale does with its Set-Cookie.
          setSessionHint(false);
          throw new ConnectError("not signed in", Code.Unauthenticated);
        }),
    });
    expect(await screen.findByRole("heading", { name: "Welcome Back" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/login");
    expect(asked).toBe(1);
    expect(hasSessionHint()).toBe(false);
  });
});
