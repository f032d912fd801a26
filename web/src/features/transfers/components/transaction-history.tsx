import { ChevronLeft, ChevronRight, Search } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { Link } from "react-router";
import { Button, buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { LoadError } from "@/components/ui/load-error";
import { NativeSelect } from "@/components/ui/native-select";
import { LoadingBlock } from "@/components/ui/spinner";
import { TransferStatus } from "@/gen/thumela/bff/v1/bff_pb";
import type { Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { cn } from "@/lib/cn";
import { formatHistoryDate, toDate } from "@/lib/date";
import { formatMoney, formatSignedMoney } from "@/lib/money";
import { formatPhone } from "@/lib/phone";
import { useDebouncedValue } from "@/lib/use-debounced-value";
import {
  HISTORY_PAGE_SIZE,
  paymentMethodLabel,
  statusLabel,
  transferBadgeTone,
  useTransferHistory,
} from "../api/transfers";
import { VOUCHER_TONE_CLASS, voucherState } from "../lib/voucher-state";
import { TransactionDetailsDialog } from "./transaction-details-dialog";
import { StatementDialog } from "./statement-dialog";

export const SEARCH_DEBOUNCE_MS = 300;

/** In the table's place when ListTransfers failed (never "No transactions found"). */
export const HISTORY_LOAD_FAILED = "We couldn't load your transactions.";

export const HISTORY_LOAD_ERROR = {
  title: "Error fetching transactions",
  description: "Could not load your transaction history. Please try again later.",
} as const;

const STATUS_FILTERS = [
  { value: "all", label: "All statuses", status: TransferStatus.UNSPECIFIED },
  { value: "pending", label: "Pending", status: TransferStatus.PENDING },
  { value: "completed", label: "Completed", status: TransferStatus.COMPLETED },
  { value: "failed", label: "Failed", status: TransferStatus.FAILED },
] as const;
type StatusFilter = (typeof STATUS_FILTERS)[number]["value"];

/** 'Showing X to Y of Z entries' for a 1-based page. */
export function showingText(page: number, pageSize: number, total: number): string {
  const from = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const to = Math.min(page * pageSize, total);
  return `Showing ${from} to ${to} of ${total} entries`;
}

export function TransactionHistory() {
  const [search, setSearch] = useState("");
  const [filter, setFilter] = useState<StatusFilter>("all");
  const [selected, setSelected] = useState<Transfer>();
  const query = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const status = STATUS_FILTERS.find((f) => f.value === filter)?.status ?? TransferStatus.UNSPECIFIED;

  // A new search or filter starts again at the first page.
  const pagingKey = `${status}|${query}`;
  const [paging, setPaging] = useState({ key: pagingKey, page: 1 });
  // Forget the old page as soon as the key changes, so returning to an earlier search or
  // filter also starts at page 1 (React's "adjust state during render" pattern).
  if (paging.key !== pagingKey) setPaging({ key: pagingKey, page: 1 });
  const page = paging.key === pagingKey ? paging.page : 1;
  const setPage = (next: number) => setPaging({ key: pagingKey, page: next });
  // Previous on page 2 and Next on the last-but-one page are disabled on the page they lead
  // to, and a disabled button drops the keyboard focus to the page's body: the focus then goes
  // to the current page's button, in the same place in the pagination.
  const pagination = useRef<HTMLElement>(null);
  const focusCurrentPage = useRef(false);
  const stepTo = (next: number) => {
    focusCurrentPage.current = true;
    setPage(next);
  };
  useEffect(() => {
    if (!focusCurrentPage.current) return;
    focusCurrentPage.current = false;
    const active = document.activeElement;
    const lost = !active || active === document.body || (pagination.current?.contains(active) && active.matches(":disabled"));
    if (lost) pagination.current?.querySelector<HTMLElement>('[aria-current="page"]')?.focus();
  }, [page]);

  const { data, isPending, isError, error, isPlaceholderData, isFetching, refetch } = useTransferHistory({ query, status, page });

  useEffect(() => {
    if (!isError) return;
    console.error("Could not load the transaction history", error);
    toast.error(HISTORY_LOAD_ERROR.title, { description: HISTORY_LOAD_ERROR.description });
  }, [isError, error]);

  const transfers = data?.transfers ?? [];
  const total = data?.totalCount ?? 0;
  const pages = Math.max(1, Math.ceil(total / HISTORY_PAGE_SIZE));
  const shown = selected && (transfers.find((t) => t.id === selected.id) ?? selected);

  return (
    <div className="mx-auto w-full max-w-5xl">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Transaction History</h1>
          <p className="mt-1 text-slate-600 dark:text-slate-400">Every transfer you have sent, newest first.</p>
        </div>
        <StatementDialog />
      </div>

      <div className="mt-6 flex flex-col gap-3 sm:flex-row">
        <div className="relative flex-1">
          <label htmlFor="history-search" className="sr-only">
            Search transactions
          </label>
          <Search aria-hidden="true" className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-400" />
          <Input
            id="history-search"
            type="search"
            placeholder="Search name or phone"
            className="pl-9"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
        </div>
        <div className="sm:w-48">
          <label htmlFor="history-status" className="sr-only">
            Filter by status
          </label>
          <NativeSelect
            id="history-status"
            value={filter}
            onChange={(event) => setFilter(event.target.value as StatusFilter)}
          >
            {STATUS_FILTERS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </NativeSelect>
        </div>
      </div>

      <Card className="mt-4 overflow-hidden" aria-busy={isPlaceholderData || undefined}>
        {isPending ? (
          <LoadingBlock label="Loading transactions..." />
        ) : isError && !data ? (
          <LoadError message={HISTORY_LOAD_FAILED} retrying={isFetching} onRetry={() => void refetch()} />
        ) : transfers.length === 0 ? (
          <div className="py-12 text-center">
            <p className="text-sm text-slate-500 dark:text-slate-400">No transactions found</p>
            {/* A sender with no transfers at all (no search, no filter) is shown where to start. */}
            {!query && filter === "all" && (
              <Link to="/send-money" className={buttonClasses("primary", "md", "mt-4")}>
                Send Money
              </Link>
            )}
          </div>
        ) : (
          // Six columns need about 640 px: the date and the card show from 1024 px (the sidebar
          // takes 256 of a tablet's 768). Below 640 px each row is a small grid (ROW_GRID), the
          // status under the recipient, so the amount, the status and the details button stay on
          // a 320 px screen; the headers are then for screen readers only.
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Your transactions</caption>
            <thead className="bg-slate-50 text-xs font-medium text-slate-500 uppercase max-sm:sr-only dark:bg-slate-800/60 dark:text-slate-400">
              <tr>
                <th scope="col" className="px-4 py-3">
                  Recipient
                </th>
                <th scope="col" className="hidden px-4 py-3 lg:table-cell">
                  Date
                </th>
                <th scope="col" className="px-4 py-3 text-right">
                  Amount
                </th>
                <th scope="col" className="hidden px-4 py-3 lg:table-cell">
                  Payment Method
                </th>
                <th scope="col" className="px-4 py-3">
                  Status
                </th>
                <th scope="col" className="w-12 px-2 py-3">
                  <span className="sr-only">Details</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {transfers.map((transfer) => (
                <HistoryRow key={transfer.id} transfer={transfer} onOpen={() => setSelected(transfer)} />
              ))}
            </tbody>
          </table>
        )}
      </Card>

      {pages > 1 && (
        <nav ref={pagination} aria-label="Pagination" className="mt-4 flex flex-col items-center justify-between gap-3 sm:flex-row">
          <p className="text-sm text-slate-600 dark:text-slate-400">{showingText(page, HISTORY_PAGE_SIZE, total)}</p>
          <div className="flex items-center gap-1">
            <Button
              variant="outline"
              size="sm"
              onClick={() => stepTo(Math.max(1, page - 1))}
              disabled={page <= 1}
              aria-label="Previous page"
            >
              <ChevronLeft aria-hidden="true" className="size-4" />
            </Button>
            {pageNumbers(page, pages).map((n, index) =>
              n === undefined ? (
                <span key={`gap-${index}`} aria-hidden="true" className="px-2 text-slate-400">
                  …
                </span>
              ) : (
                <Button
                  key={n}
                  variant={n === page ? "primary" : "ghost"}
                  size="sm"
                  aria-label={`Page ${n}`}
                  aria-current={n === page ? "page" : undefined}
                  onClick={() => setPage(n)}
                >
                  {n}
                </Button>
              ),
            )}
            <Button
              variant="outline"
              size="sm"
              onClick={() => stepTo(Math.min(pages, page + 1))}
              disabled={page >= pages}
              aria-label="Next page"
            >
              <ChevronRight aria-hidden="true" className="size-4" />
            </Button>
          </div>
        </nav>
      )}

      <TransactionDetailsDialog transfer={shown} onOpenChange={(open) => !open && setSelected(undefined)} />
    </div>
  );
}

/** Page buttons: first, last, and the current one with its neighbours; gaps as undefined. */
function pageNumbers(current: number, pages: number): Array<number | undefined> {
  const wanted = new Set([1, pages, current - 1, current, current + 1].filter((n) => n >= 1 && n <= pages));
  const sorted = [...wanted].sort((a, b) => a - b);
  const out: Array<number | undefined> = [];
  for (const n of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && n - last > 1) out.push(undefined);
    out.push(n);
  }
  return out;
}

/**
 * A row below 640 px: recipient and amount side by side, the status under them and the details
 * button at the right of both (a grid; the cells keep their table roles).
 */
const ROW_GRID = "max-sm:grid max-sm:grid-cols-[minmax(0,1fr)_auto_auto] max-sm:items-start";

function HistoryRow({ transfer, onOpen }: { transfer: Transfer; onOpen: () => void }) {
  const created = toDate(transfer.createdAt);
  const state = voucherState(transfer);
  const fee = transfer.totalAmountCents - transfer.amountCents;
  return (
    <tr onClick={onOpen} className={cn("cursor-pointer hover:bg-slate-50 dark:hover:bg-slate-800/60", ROW_GRID)}>
      <td className="px-4 py-3 max-sm:pr-2 max-sm:pb-1 max-sm:wrap-break-word">
        <p className="font-medium text-slate-900 dark:text-slate-100">{transfer.recipientName}</p>
        <p className="text-xs text-slate-500 dark:text-slate-400">{formatPhone(transfer.recipientPhone)}</p>
      </td>
      <td className="hidden px-4 py-3 whitespace-nowrap text-slate-600 lg:table-cell dark:text-slate-300">
        {created && <time dateTime={created.toISOString()}>{formatHistoryDate(created)}</time>}
      </td>
      <td className="px-4 py-3 text-right whitespace-nowrap tabular-nums max-sm:px-2 max-sm:pb-1">
        <p className="font-medium">{formatMoney(transfer.amountCents)}</p>
        <p className="text-xs text-slate-500 dark:text-slate-400">
          {/* A failed transfer charged nothing (DECISIONS.md): no "+fee" line. A waived fee says
              so, as the details and the statement do, rather than "+R0,00". */}
          {transfer.status !== TransferStatus.FAILED && transfer.feeWaived ? (
            "Fee waived"
          ) : (
            <>
              <span className="sr-only">Fee </span>
              {transfer.status === TransferStatus.FAILED ? "Not charged" : formatSignedMoney(fee, "in")}
            </>
          )}
        </p>
      </td>
      <td className="hidden px-4 py-3 text-slate-600 lg:table-cell dark:text-slate-300">
        {paymentMethodLabel(transfer.paymentMethodName, transfer.paymentMethodLastFour)}
      </td>
      <td className="px-4 py-3 max-sm:col-span-2 max-sm:col-start-1 max-sm:row-start-2 max-sm:pt-0">
        <span
          className={cn(
            "inline-flex rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset",
            transferBadgeTone(transfer),
          )}
        >
          {statusLabel(transfer.status)}
        </span>
        {state && <p className={cn("mt-1 max-w-56 text-xs", VOUCHER_TONE_CLASS[state.tone])}>{state.text}</p>}
      </td>
      <td className="px-2 py-3 text-right max-sm:col-start-3 max-sm:row-span-2 max-sm:row-start-1 max-sm:self-center max-sm:pl-0">
        <button
          type="button"
          onClick={(event) => {
            event.stopPropagation();
            onOpen();
          }}
          aria-haspopup="dialog"
          aria-label={`View details of the transfer to ${transfer.recipientName}`}
          className="inline-flex size-9 items-center justify-center rounded-lg text-slate-500 hover:bg-slate-100 hover:text-slate-700 dark:text-slate-400 dark:hover:bg-slate-800 dark:hover:text-slate-200"
        >
          <ChevronRight aria-hidden="true" className="size-5" />
        </button>
      </td>
    </tr>
  );
}
