import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { TransferSchema, TransferStatus, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { ListTransfersRequest } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";

const nbsp = "\u00a0";

const transfers = [
  create(TransferSchema, {
    id: "t-3",
    recipientName: "Sipho Dlamini",
    recipientPhone: "+27821234567",
    amountCents: 125050n,
    status: TransferStatus.COMPLETED,
    createdAt: timestampFromMs(Date.now() - 60_000),
  }),
  create(TransferSchema, {
    id: "t-2",
    recipientName: "Lerato Nkosi",
    recipientPhone: "+27831234567",
    amountCents: 20000n,
    status: TransferStatus.PROCESSING,
    createdAt: timestampFromMs(Date.now() - 86_400_000 * 3),
  }),
  create(TransferSchema, {
    id: "t-1",
    recipientName: "Ayanda Zulu",
    recipientPhone: "+27841234567",
    amountCents: 5000n,
    status: TransferStatus.FAILED,
    createdAt: timestampFromMs(Date.now() - 86_400_000 * 9),
  }),
];

describe("dashboard", () => {
  it("shows quick actions and the three newest transfers", async () => {
    let asked: ListTransfersRequest | undefined;
    renderApp("/dashboard", {
      session: SIGNED_IN,
      routes: (r) =>
        r.rpc(TransfersService.method.listTransfers, (request) => {
          asked = request;
          return { transfers, totalCount: 12 };
        }),
    });
    expect(await screen.findByRole("heading", { name: "Quick Actions" })).toBeInTheDocument();
    expect(screen.getByText("Send money quickly and securely")).toBeInTheDocument();
    const newTransaction = screen.getByRole("region", { name: "New Transaction" });
    expect(within(newTransaction).getByRole("link", { name: "Send Money" })).toHaveAttribute("href", "/send-money");

    const resend = await screen.findByRole("link", { name: `Resend R1${nbsp}250,50 to Sipho Dlamini` });
    const target = new URL(resend.getAttribute("href")!, "http://x");
    expect(target.pathname).toBe("/send-money");
    expect(Object.fromEntries(target.searchParams)).toEqual({
      amount: "1250.50",
      recipient: "Sipho Dlamini",
      phone: "+27821234567",
    });

    const recent = screen.getByRole("region", { name: "Recent Transactions" });
    const rows = within(recent).getAllByRole("listitem");
    expect(rows).toHaveLength(3);
    expect(within(rows[0]).getByRole("img", { name: "Completed" })).toBeInTheDocument();
    expect(rows[0]).toHaveTextContent("-R1 250,50"); // the matcher folds the no-break space
    expect(rows[0]).toHaveTextContent("Today,");
    expect(within(rows[1]).getByRole("img", { name: "Processing" })).toBeInTheDocument();
    expect(within(rows[2]).getByRole("img", { name: "Failed" })).toBeInTheDocument();
    expect(within(recent).getByRole("link", { name: "View All" })).toHaveAttribute("href", "/transactions");
    expect(asked).toMatchObject({ page: 1, pageSize: 3 });
  });

  it("shows the empty states when there are no transfers", async () => {
    renderApp("/dashboard", { session: SIGNED_IN });
    expect(await screen.findByText("No transactions yet")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "No recent transactions" })).toBeDisabled();
  });

  it("logs a failed load and says so with 'Try again' (no toast, never 'No transactions yet')", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    let failing = true;
    const { user } = renderApp("/dashboard", {
      session: SIGNED_IN,
      routes: (r) =>
        r.rpc(TransfersService.method.listTransfers, () => {
          if (failing) throw new ConnectError("boom", Code.Internal);
          return { transfers, totalCount: 3 };
        }),
    });
    const recent = await screen.findByRole("region", { name: "Recent Transactions" });
    expect(await within(recent).findByText("We couldn't load your recent transactions.")).toBeInTheDocument();
    expect(screen.queryByText("No transactions yet")).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Last transaction unavailable" })).toBeDisabled();
    expect(screen.queryByRole("button", { name: "No recent transactions" })).not.toBeInTheDocument();
    expect(log).toHaveBeenCalledWith("Could not load recent transactions", expect.any(ConnectError));
    failing = false;
    await user.click(within(recent).getByRole("button", { name: "Try again" }));
    expect(await within(recent).findAllByRole("listitem")).toHaveLength(3);
  });
});
