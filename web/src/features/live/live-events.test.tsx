import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport } from "@connectrpc/connect";
import { createConnectQueryKey } from "@connectrpc/connect-query";
import { render, screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { AppProvider, createAppQueryClient } from "@/app/provider";
import {
  AccountService,
  EventsService,
  GetLimitsResponseSchema,
  GetProfileResponseSchema,
  ListTransfersResponseSchema,
  ListPaymentMethodsResponseSchema,
  ListSchedulesResponseSchema,
  PaymentMethodsService,
  SchedulesService,
  TransferStatus,
  TransfersService,
} from "@/gen/thumela/bff/v1/bff_pb";
import { useLiveStatus } from "@/lib/live-status";
import { liveFeed } from "@/test/live-feed";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { LiveEventsProvider } from "./live-events-provider";

function Status() {
  return <p>Live: {useLiveStatus()}</p>;
}

describe("live events", () => {
  it("says whether the stream is open, and reconnects after 1 s from the last cursor", async () => {
    const feed = liveFeed();
    render(
      <AppProvider transport={createRouterTransport((router) => feed.register(router))} queryClient={createAppQueryClient({ retry: false })}>
        <LiveEventsProvider>
          <Status />
        </LiveEventsProvider>
      </AppProvider>,
    );
    expect(screen.getByText("Live: reconnecting")).toBeInTheDocument();
    await vi.waitFor(() => expect(feed.open).toBe(1));
    feed.push({ cursor: "7", event: { case: "heartbeat", value: {} } });
    expect(await screen.findByText("Live: connected")).toBeInTheDocument();

    feed.fail(new ConnectError("connection reset", Code.Unavailable));
    expect(await screen.findByText("Live: reconnecting")).toBeInTheDocument();
    await vi.waitFor(() => expect(feed.requests).toHaveLength(2), { timeout: 3000 });
    expect(feed.requests.map((request) => request.resumeAfter)).toEqual(["", "7"]);
    feed.push({ cursor: "8", event: { case: "heartbeat", value: {} } });
    expect(await screen.findByText("Live: connected")).toBeInTheDocument();
  });

  it("opens one stream for the signed-in screens, whichever page is shown", async () => {
    const feed = liveFeed();
    const { router } = renderApp("/dashboard", { session: SIGNED_IN, routes: (r) => feed.register(r) });
    await screen.findByRole("heading", { name: "Quick Actions" });
    await vi.waitFor(() => expect(feed.open).toBe(1));
    await router.navigate("/account");
    await screen.findByRole("heading", { level: 1, name: "Account" });
    expect(feed.open).toBe(1);
    expect(feed.requests).toHaveLength(1);
  });

  it("profileUpdated updates the top-bar badge and the Account page", async () => {
    const feed = liveFeed();
    renderApp("/account", {
      session: SIGNED_IN,
      routes: (r) => {
        feed.register(r);
        r.rpc(AccountService.method.getProfile, () => create(GetProfileResponseSchema, { profile: SIGNED_IN.profile }));
      },
    });
    await screen.findByRole("heading", { name: "Account" });
    expect(screen.getByRole("group", { name: "Signed in as Thandi Mokoena" })).toBeInTheDocument();
    await vi.waitFor(() => expect(feed.open).toBe(1));

    feed.push({
      cursor: "12",
      event: { case: "profileUpdated", value: { profile: { firstName: "Thandiwe", lastName: "Mokoena", phoneNumber: "+27821234567" } } },
    });

    const badge = await screen.findByRole("group", { name: "Signed in as Thandiwe Mokoena" });
    expect(badge).toHaveTextContent("TM");
    const details = screen.getByRole("tabpanel", { name: "Profile" });
    expect(within(details).getByText("Thandiwe")).toBeInTheDocument();
    expect(within(details).getByText("+27 82 123 4567")).toBeInTheDocument();
  });

  it("paymentMethodsChanged re-reads the payment methods", async () => {
    const feed = liveFeed();
    let cards: Array<{ id: string; name: string; lastFour: string; expiryMonth: number; expiryYear: number }> = [];
    renderApp("/payment-methods", {
      session: SIGNED_IN,
      routes: (r) => {
        feed.register(r);
        r.rpc(PaymentMethodsService.method.listPaymentMethods, () =>
          create(ListPaymentMethodsResponseSchema, { paymentMethods: cards }),
        );
      },
    });
    expect(await screen.findByRole("heading", { name: "No Payment Methods" })).toBeInTheDocument();
    await vi.waitFor(() => expect(feed.open).toBe(1));

    // Added in another tab.
    cards = [{ id: "pm-1", name: "Work Visa", lastFour: "4242", expiryMonth: 8, expiryYear: 2030 }];
    feed.push({ cursor: "3", event: { case: "paymentMethodsChanged", value: { paymentMethodId: "pm-1" } } });
    expect(await screen.findByRole("heading", { name: "Work Visa" })).toBeInTheDocument();
  });

  it("transferUpdated stores the transfer and re-reads the lists and limits", async () => {
    const feed = liveFeed();
    const { queryClient } = renderApp("/account", { session: SIGNED_IN, routes: (r) => feed.register(r) });
    await screen.findByRole("heading", { level: 1, name: "Account" });
    await vi.waitFor(() => expect(feed.open).toBe(1));
    const listKey = createConnectQueryKey({ schema: TransfersService.method.listTransfers, input: { page: 1 }, cardinality: "finite" });
    const limitsKey = createConnectQueryKey({ schema: TransfersService.method.getLimits, input: {}, cardinality: "finite" });
    queryClient.setQueryData(listKey, create(ListTransfersResponseSchema, {}));
    queryClient.setQueryData(limitsKey, create(GetLimitsResponseSchema, {}));

    feed.push({
      cursor: "21",
      event: {
        case: "transferUpdated",
        value: { transfer: { id: "tr-1", recipientName: "Sipho", status: TransferStatus.COMPLETED, amountCents: 5000n } },
      },
    });

    await vi.waitFor(() => {
      const cached = queryClient
        .getQueryCache()
        .findAll({ queryKey: ["connect-query", { methodName: "GetTransfer", input: { id: "tr-1" } }] });
      expect(cached).toHaveLength(1);
      expect((cached[0].state.data as { transfer?: { status: TransferStatus } }).transfer?.status).toBe(TransferStatus.COMPLETED);
    });
    expect(queryClient.getQueryState(listKey)?.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(limitsKey)?.isInvalidated).toBe(true);
  });

  it("transferUpdated of a scheduled send re-reads the schedules, and of another transfer does not", async () => {
    const feed = liveFeed();
    const { queryClient } = renderApp("/account", { session: SIGNED_IN, routes: (r) => feed.register(r) });
    await screen.findByRole("heading", { level: 1, name: "Account" });
    await vi.waitFor(() => expect(feed.open).toBe(1));
    const schedulesKey = createConnectQueryKey({ schema: SchedulesService.method.listSchedules, input: {}, cardinality: "finite" });
    queryClient.setQueryData(schedulesKey, create(ListSchedulesResponseSchema, {}));

    feed.push({ cursor: "30", event: { case: "transferUpdated", value: { transfer: { id: "tr-own", status: TransferStatus.FAILED } } } });
    await vi.waitFor(() => expect(queryClient.getQueryCache().findAll({ queryKey: ["connect-query", { methodName: "GetTransfer", input: { id: "tr-own" } }] })).toHaveLength(1));
    expect(queryClient.getQueryState(schedulesKey)?.isInvalidated).toBe(false);

    feed.push({
      cursor: "31",
      event: { case: "transferUpdated", value: { transfer: { id: "tr-sch", scheduleId: "s-1", status: TransferStatus.FAILED } } },
    });
    await vi.waitFor(() => expect(queryClient.getQueryState(schedulesKey)?.isInvalidated).toBe(true));
  });

  it("stops when the session has ended, and the guard sends the visitor to login", async () => {
    const { router } = renderApp("/account", {
      session: SIGNED_IN,
      routes: (r, state) =>
        r.rpc(
          // The session was revoked elsewhere: the stream answers Unauthenticated.
          EventsService.method.watchEvents,
          // eslint-disable-next-line require-yield -- a server stream that fails before its first message: the handler is a generator that never yields.
          async function* () {
            state.session = undefined;
            throw new ConnectError("you must be logged in", Code.Unauthenticated);
          },
        ),
    });
    expect(await screen.findByRole("heading", { name: "Welcome Back" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/login");
    expect(router.state.location.search).toBe("?redirect=%2Faccount");
  });
});
