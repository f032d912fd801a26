import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { configure, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { TransferStatus, TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import type { ListTransfersRequest, Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { makeTransfer } from "../test-utils";
import { showingText } from "./transaction-history";

// The first render of a lazy route transforms its modules: allow for a slow, busy machine.
configure({ asyncUtilTimeout: 4000 });
vi.setConfig({ testTimeout: 20_000 });

const NAMES = ["Sipho Dlamini", "Lerato Nkosi", "Ayanda Zulu", "Thabo Mokoena", "Naledi Khumalo", "Zanele Mthembu", "Bongani Ndlovu"];

function sevenTransfers(): Transfer[] {
  return NAMES.map((name, index) =>
    makeTransfer({
      recipientName: name,
      recipientPhone: `+2782123456${index}`,
      amountCents: BigInt(10000 + index * 1000),
      totalAmountCents: BigInt(10000 + index * 1000 + 1140),
      createdAt: timestampFromMs(Date.UTC(2026, 2, 5 + index, 7, 7)), // 09:07 in Johannesburg
    }),
  );
}

/** A fake ListTransfers that pages (5 per page) and filters like the server. */
function renderHistory(all: Transfer[] = sevenTransfers()) {
  const requests: ListTransfersRequest[] = [];
  const utils = renderApp("/transactions", {
    session: SIGNED_IN,
    routes: (r) =>
      r.rpc(TransfersService.method.listTransfers, (request) => {
        requests.push(request);
        const query = request.query.toLowerCase();
        const matching = all.filter(
          (t) =>
            (!query || t.recipientName.toLowerCase().includes(query) || t.recipientPhone.includes(query)) &&
            (request.status === TransferStatus.UNSPECIFIED || t.status === request.status),
        );
        const start = (request.page - 1) * request.pageSize;
        return { transfers: matching.slice(start, start + request.pageSize), totalCount: matching.length };
      }),
  });
  return { ...utils, requests };
}

const bodyRows = () => within(screen.getByRole("table")).getAllByRole("row").slice(1);

describe("transaction history", () => {
  it("shows a table with recipient, date, amount with its fee, payment method, status and a chevron", async () => {
    const transfers = [
      makeTransfer({
        recipientName: "Sipho Dlamini",
        recipientPhone: "+27821234567",
        amountCents: 15000n,
        totalAmountCents: 16140n,
        status: TransferStatus.PENDING,
        paymentMethodName: "Travel Mastercard",
        paymentMethodLastFour: "4444",
        createdAt: timestampFromMs(Date.UTC(2026, 2, 5, 7, 7)), // 09:07 in Johannesburg
      }),
      makeTransfer({ recipientName: "Lerato Nkosi", status: TransferStatus.PROCESSING }),
      makeTransfer({ recipientName: "Ayanda Zulu", status: TransferStatus.COMPLETED, paymentMethodName: "", paymentMethodLastFour: "" }),
      makeTransfer({ recipientName: "Thabo Mokoena", status: TransferStatus.FAILED }),
    ];
    renderHistory(transfers);
    expect(await screen.findByRole("heading", { level: 1, name: "Transaction History" })).toBeInTheDocument();
    const table = await screen.findByRole("table");
    const headers = within(table).getAllByRole("columnheader").map((h) => h.textContent);
    expect(headers).toEqual(["Recipient", "Date", "Amount", "Payment Method", "Status", "Details"]);
    // Date and Payment Method show from 1024 px: beside a tablet's sidebar (768 px) the six
    // columns pushed Status and the details button off the screen (F18).
    expect(within(table).getByRole("columnheader", { name: "Date" })).toHaveClass("hidden", "lg:table-cell");
    expect(within(table).getByRole("columnheader", { name: "Payment Method" })).toHaveClass("hidden", "lg:table-cell");
    // Below 640 px a row is a grid with the status under the recipient; the headers stay for
    // screen readers, and every cell keeps its place in the table.
    expect(table.querySelector("thead")).toHaveClass("max-sm:sr-only");

    const [first, second, third, fourth] = bodyRows();
    expect(first).toHaveTextContent("Sipho Dlamini");
    expect(first).toHaveTextContent("+27 82 123 4567");
    expect(first).toHaveTextContent("05 Mar 2026, 09:07");
    expect(first).toHaveTextContent("R150,00");
    expect(first).toHaveTextContent("+R11,40"); // fee = total − amount
    expect(first).toHaveTextContent("Travel Mastercard (•••• 4444)");
    expect(within(first).getByText("Pending")).toHaveClass("bg-amber-50");
    expect(within(second).getByText("Processing")).toHaveClass("bg-amber-50");
    expect(within(third).getByText("Completed")).toHaveClass("bg-emerald-50");
    expect(third).toHaveTextContent("Unknown payment method");
    expect(within(fourth).getByText("Failed")).toHaveClass("bg-red-50");
    expect(within(first).getByRole("button", { name: "View details of the transfer to Sipho Dlamini" })).toBeInTheDocument();
    expect(first).toHaveClass("max-sm:grid");
    expect(within(first).getAllByRole("cell")).toHaveLength(6);
    // One page only: no pagination.
    expect(screen.queryByRole("navigation", { name: "Pagination" })).not.toBeInTheDocument();
  });

  it("pages 5 at a time and says 'Showing X to Y of Z entries'", async () => {
    const { user, requests } = renderHistory();
    await screen.findByRole("table");
    expect(bodyRows()).toHaveLength(5);
    const pagination = screen.getByRole("navigation", { name: "Pagination" });
    expect(pagination).toHaveTextContent("Showing 1 to 5 of 7 entries");
    expect(requests[0]).toMatchObject({ query: "", status: TransferStatus.UNSPECIFIED, page: 1, pageSize: 5 });

    await user.click(within(pagination).getByRole("button", { name: "Next page" }));
    expect(await screen.findByText("Showing 6 to 7 of 7 entries")).toBeInTheDocument();
    expect(bodyRows()).toHaveLength(2);
    expect(requests.at(-1)).toMatchObject({ page: 2, pageSize: 5 });
    expect(within(pagination).getByRole("button", { name: "Page 2" })).toHaveAttribute("aria-current", "page");
    expect(within(pagination).getByRole("button", { name: "Next page" })).toBeDisabled();

    await user.click(within(pagination).getByRole("button", { name: "Page 1" }));
    expect(await screen.findByText("Showing 1 to 5 of 7 entries")).toBeInTheDocument();
  });

  // The walk of session 24: Next on the last-but-one page is disabled on the last, and the focus
  // fell to the page's body; a keyboard user had to start again from the top of the page.
  it("keeps the keyboard focus in the pagination when Next or Previous reaches the end", async () => {
    const { user } = renderHistory();
    await screen.findByRole("table");
    const pagination = screen.getByRole("navigation", { name: "Pagination" });
    within(pagination).getByRole("button", { name: "Next page" }).focus();
    await user.keyboard("{Enter}");
    expect(await screen.findByText("Showing 6 to 7 of 7 entries")).toBeInTheDocument();
    expect(within(pagination).getByRole("button", { name: "Next page" })).toBeDisabled();
    expect(document.activeElement).toBe(within(pagination).getByRole("button", { name: "Page 2" }));

    within(pagination).getByRole("button", { name: "Previous page" }).focus();
    await user.keyboard("{Enter}");
    expect(await screen.findByText("Showing 1 to 5 of 7 entries")).toBeInTheDocument();
    expect(document.activeElement).toBe(within(pagination).getByRole("button", { name: "Page 1" }));
  });

  it("searches on the server after a pause in typing and combines it with the status filter", async () => {
    const all = sevenTransfers();
    all[0].status = TransferStatus.COMPLETED;
    all[1].status = TransferStatus.FAILED;
    const { user, requests } = renderHistory(all);
    await screen.findByRole("table");
    await user.click(screen.getByRole("button", { name: "Next page" }));
    await screen.findByText("Showing 6 to 7 of 7 entries");

    const before = requests.length;
    await user.type(screen.getByLabelText("Search transactions"), "sipho");
    await vi.waitFor(() => expect(requests.at(-1)).toMatchObject({ query: "sipho", page: 1, pageSize: 5 }));
    // Debounced: one request for the whole word, not one per letter.
    expect(requests.slice(before).filter((r) => r.query && r.query !== "sipho")).toHaveLength(0);
    expect(await screen.findByText("Sipho Dlamini")).toBeInTheDocument();
    expect(bodyRows()).toHaveLength(1);

    await user.selectOptions(screen.getByLabelText("Filter by status"), "failed");
    await vi.waitFor(() =>
      expect(requests.at(-1)).toMatchObject({ query: "sipho", status: TransferStatus.FAILED, page: 1 }),
    );
    expect(await screen.findByText("No transactions found")).toBeInTheDocument();
    // A search that found nothing is not a sender without transfers: no 'Send Money' there.
    expect(within(screen.getByRole("main")).queryByRole("link", { name: "Send Money" })).not.toBeInTheDocument();

    await user.clear(screen.getByLabelText("Search transactions"));
    await vi.waitFor(() => expect(requests.at(-1)).toMatchObject({ query: "", status: TransferStatus.FAILED }));
    expect(await screen.findByText("Lerato Nkosi")).toBeInTheDocument();

    const options = within(screen.getByLabelText("Filter by status")).getAllByRole("option").map((o) => o.getAttribute("value"));
    expect(options).toEqual(["all", "pending", "completed", "failed"]);
    await user.selectOptions(screen.getByLabelText("Filter by status"), "completed");
    await vi.waitFor(() => expect(requests.at(-1)).toMatchObject({ status: TransferStatus.COMPLETED }));
    await user.selectOptions(screen.getByLabelText("Filter by status"), "pending");
    await vi.waitFor(() => expect(requests.at(-1)).toMatchObject({ status: TransferStatus.PENDING }));
  });

  it("shows no '+fee' for a failed transfer: its fee was not charged", async () => {
    renderHistory([
      makeTransfer({ recipientName: "Sipho Dlamini", status: TransferStatus.FAILED, amountCents: 5000n, feeCents: 1110n, totalAmountCents: 6110n }),
    ]);
    await screen.findByRole("table");
    const [row] = bodyRows();
    expect(row).toHaveTextContent("Not charged");
    expect(row).not.toHaveTextContent("+R11,10");
  });

  it("says a waived fee was waived, as the details and the statement do, not '+R0,00'", async () => {
    renderHistory([
      makeTransfer({ recipientName: "Sipho Dlamini", status: TransferStatus.COMPLETED, amountCents: 5000n, feeCents: 0n, totalAmountCents: 5000n, feeWaived: true }),
    ]);
    await screen.findByRole("table");
    const [row] = bodyRows();
    expect(row).toHaveTextContent("Fee waived");
    expect(row).not.toHaveTextContent("+R0,00");
  });

  it("says 'No transactions found' when there are none, and where to start", async () => {
    renderHistory([]);
    expect(await screen.findByText("No transactions found")).toBeInTheDocument();
    expect(screen.queryByRole("table")).not.toBeInTheDocument();
    expect(within(screen.getByRole("main")).getByRole("link", { name: "Send Money" })).toHaveAttribute("href", "/send-money");
  });

  it("shows a loading state, then a toast when the history cannot be loaded", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    let fail: () => void = () => {};
    renderApp("/transactions", {
      session: SIGNED_IN,
      routes: (r) =>
        r.rpc(TransfersService.method.listTransfers, async () => {
          await new Promise<void>((resolve) => (fail = resolve));
          throw new ConnectError("boom", Code.Internal);
        }),
    });
    expect(await screen.findByText("Loading transactions...")).toBeInTheDocument();
    fail();
    expect(await screen.findByText("Error fetching transactions")).toBeInTheDocument();
    expect(screen.getByText("Could not load your transaction history. Please try again later.")).toBeInTheDocument();
  });

  it("shows an error with 'Try again', not 'No transactions found', when the history cannot be loaded", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    let failing = true;
    const { user } = renderApp("/transactions", {
      session: SIGNED_IN,
      routes: (r) =>
        r.rpc(TransfersService.method.listTransfers, () => {
          if (failing) throw new ConnectError("boom", Code.Internal);
          return { transfers: [makeTransfer({ recipientName: "Sipho Dlamini" })], totalCount: 1 };
        }),
    });
    expect(await screen.findByText("We couldn't load your transactions.")).toBeInTheDocument();
    expect(screen.queryByText("No transactions found")).not.toBeInTheDocument();
    failing = false;
    await user.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByRole("table")).toHaveTextContent("Sipho Dlamini");
    expect(screen.queryByText("We couldn't load your transactions.")).not.toBeInTheDocument();
  });

  it("opens the details dialog from a row, with 'Not specified' for a missing location", async () => {
    const transfer = makeTransfer({ recipientName: "Ayanda Zulu", withdrawalLocation: undefined });
    const { user } = renderHistory([transfer]);
    await screen.findByRole("table");
    await user.click(screen.getByText("Ayanda Zulu"));
    const dialog = await screen.findByRole("dialog", { name: "Transaction Details" });
    expect(within(dialog).getByText("Withdrawal Location").nextElementSibling).toHaveTextContent("Not specified");
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();

    // And by keyboard, from the chevron button; Escape brings the focus back to it.
    const details = screen.getByRole("button", { name: "View details of the transfer to Ayanda Zulu" });
    details.focus();
    await user.keyboard("{Enter}");
    expect(await screen.findByRole("dialog", { name: "Transaction Details" })).toBeInTheDocument();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    await waitFor(() => expect(details).toHaveFocus());
  });
});

describe("showingText", () => {
  it.each([
    [1, 5, 7, "Showing 1 to 5 of 7 entries"],
    [2, 5, 7, "Showing 6 to 7 of 7 entries"],
    [3, 5, 15, "Showing 11 to 15 of 15 entries"],
    [1, 5, 0, "Showing 0 to 0 of 0 entries"],
  ])("page %i of size %i with %i entries: %s", (page, size, total, text) => {
    expect(showingText(page, size, total)).toBe(text);
  });
});
