import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport } from "@connectrpc/connect";
import type { ConnectRouter } from "@connectrpc/connect";
import { render } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter } from "react-router";
import { vi } from "vitest";
import { RouterProvider } from "react-router/dom";
import { AppProvider, createAppQueryClient } from "@/app/provider";
import { routes } from "@/app/router";
import {
  AuthService,
  CreditService,
  GetLimitPolicyResponseSchema,
  GetLimitsResponseSchema,
  GetSessionResponseSchema,
  LimitKind,
  ListTransfersResponseSchema,
  SchedulesService,
  SystemService,
  TransfersService,
} from "@/gen/thumela/bff/v1/bff_pb";
import { SESSION_HINT_COOKIES } from "@/lib/session-hint";

/** A session as SignIn, VerifyEmail and GetSession answer it (plain fields, no message type). */
export interface SessionInit {
  user?: { id: string; email: string };
  profile?: { firstName?: string; lastName?: string; phoneNumber?: string };
}

export const SIGNED_IN: SessionInit = {
  user: { id: "u-1", email: "thandi@example.co.za" },
  profile: { firstName: "Thandi", lastName: "Mokoena" },
};

/**
 * The limits the fake BFF answers: deliberately not the production defaults, so that a page
 * quoting a copy of its own instead of the server's figures fails its test.
 */
export const TEST_LIMIT_POLICY = create(GetLimitPolicyResponseSchema, {
  limits: [
    { kind: LimitKind.MINIMUM, limitCents: 2_000n },
    { kind: LimitKind.PER_TRANSFER, limitCents: 250_000n },
    { kind: LimitKind.DAILY, limitCents: 420_000n },
    { kind: LimitKind.MONTHLY, limitCents: 1_900_000n },
    { kind: LimitKind.YEARLY, limitCents: 8_800_000n },
  ],
  amountMultipleCents: 1_000n,
});

/** A new sender's usage under TEST_LIMIT_POLICY: nothing sent, nothing waiting. */
export const TEST_LIMITS = create(GetLimitsResponseSchema, {
  limits: [
    { kind: LimitKind.PER_TRANSFER, limitCents: 250_000n, remainingCents: 250_000n },
    { kind: LimitKind.DAILY, limitCents: 420_000n, remainingCents: 420_000n },
    { kind: LimitKind.MONTHLY, limitCents: 1_900_000n, remainingCents: 1_900_000n },
    { kind: LimitKind.YEARLY, limitCents: 8_800_000n, remainingCents: 8_800_000n },
    { kind: LimitKind.MINIMUM, limitCents: 2_000n },
  ],
});

/** The referral code the fake CreditService answers (not derivable from SIGNED_IN's id). */
export const TEST_REFERRAL_CODE = "THU-TESTC0DE";

interface FakeBackend {
  /** The session GetSession answers; undefined → Unauthenticated. */
  session?: SessionInit;
  /**
   * Whether the browser starts with the BFF's signed-in hint; by default when `session` is
   * given. True without a session is a browser whose session ended (or a GetSession a test
   * makes fail), which the client then asks about.
   */
  signedInHint?: boolean;
  /** Extra or replacing handlers (use router.rpc for single methods), registered after the defaults. */
  routes?: (router: ConnectRouter, state: { session?: SessionInit }) => void;
}

/**
 * The BFF's signed-in hint cookie (lib/session-hint), which the fake BFF keeps as the real one
 * does with its Set-Cookie: the web client asks GetSession only while the browser holds it.
 */
export function setSessionHint(present: boolean) {
  document.cookie = present ? `${SESSION_HINT_COOKIES[0]}=1; path=/` : `${SESSION_HINT_COOKIES[0]}=; path=/; max-age=0`;
}

/**
 * A fake BFF behind Connect's in-memory router transport. Defaults: GetSession follows the
 * session state (SignIn sets it, SignOut clears it), the connection check is fine, no transfers.
 * The signed-in hint follows the session as the BFF sets it: given with a session, set whenever
 * a session starts (a test's SignIn handler sets `state.session`), and cleared by SignOut and by
 * GetSession's Unauthenticated answer, so that a session ended on the server (`state.session =
 * undefined`) costs one request, as in the browser.
 */
export function fakeTransport({ session, signedInHint = session !== undefined, routes: extra }: FakeBackend = {}) {
  let current = session;
  const state = {
    get session() {
      return current;
    },
    set session(next: SessionInit | undefined) {
      current = next;
      if (next) setSessionHint(true);
    },
  };
  setSessionHint(signedInHint);
  return createRouterTransport((router) => {
    router.service(AuthService, {
      getSession: () => {
        if (!state.session) {
          setSessionHint(false);
          throw new ConnectError("not signed in", Code.Unauthenticated);
        }
        return create(GetSessionResponseSchema, state.session);
      },
      signOut: () => {
        state.session = undefined;
        setSessionHint(false);
        return {};
      },
    });
    router.service(SystemService, { checkConnection: () => ({ ok: true }) });
    router.service(TransfersService, {
      listTransfers: () => create(ListTransfersResponseSchema, { transfers: [], totalCount: 0 }),
      getLimitPolicy: () => TEST_LIMIT_POLICY,
      getLimits: () => TEST_LIMITS,
    });
    // No schedules and no credit unless a test says otherwise.
    router.service(SchedulesService, { listSchedules: () => ({ schedules: [] }) });
    router.service(CreditService, { getCredit: () => ({ balanceCents: 0n, referralCode: TEST_REFERRAL_CODE }) });
    extra?.(router, state);
  });
}

/** Renders the whole app (real routes, providers and toasts) at `path`. */
export function renderApp(path: string, backend: FakeBackend = {}) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const queryClient = createAppQueryClient({ retry: false });
  // With fake timers on (vi.useFakeTimers), typing and clicking move the fake clock along.
  const user = userEvent.setup(vi.isFakeTimers() ? { advanceTimers: vi.advanceTimersByTime } : {});
  const utils = render(
    <AppProvider transport={fakeTransport(backend)} queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProvider>,
  );
  return { ...utils, router, queryClient, user };
}
