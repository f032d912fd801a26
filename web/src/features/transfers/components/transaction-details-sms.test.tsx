import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { CollectionStatus, RefundStatus, SmsDeliverySchema, SmsDeliveryStatus, TransfersService, VoucherSchema } from "@/gen/thumela/bff/v1/bff_pb";
import type { SmsDelivery, Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { liveFeed } from "@/test/live-feed";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { completed, makeTransfer, withChanges, withVoucher } from "../test-utils";
import { SMS_NOT_CHECKED } from "./transaction-details-dialog";

/** HH:MM in Johannesburg, as the dialog tells the time. */
const saClock = new Intl.DateTimeFormat("en-ZA", { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: "Africa/Johannesburg" });

function sms(init: MessageInitShape<typeof SmsDeliverySchema>): SmsDelivery {
  return create(SmsDeliverySchema, { recipient: "+27821234567", updatedAt: timestampFromMs(Date.now() - 1000), ...init });
}

/**
 * The dashboard with one transfer in its list (which carries no SMS state, as the BFF's lists
 * do not) and GetTransfer answering `detail()`: the transfer with its SMS.
 */
function renderWithSms(transfer: Transfer, detail: () => Transfer, live?: ReturnType<typeof liveFeed>, cancelled?: Transfer) {
  return renderApp("/dashboard", {
    session: SIGNED_IN,
    routes: (r) => {
      r.rpc(TransfersService.method.listTransfers, () => ({ transfers: [transfer], totalCount: 1 }));
      r.rpc(TransfersService.method.getTransfer, () => ({ transfer: detail() }));
      // CancelTransfer answers the transfer without its SMS's state, as the BFF does.
      if (cancelled) r.rpc(TransfersService.method.cancelTransfer, () => ({ transfer: cancelled }));
      live?.register(r);
    },
  });
}

async function openDialog(user: ReturnType<typeof renderApp>["user"]) {
  const recent = await screen.findByRole("region", { name: "Recent Transactions" });
  await user.click(await within(recent).findByRole("button", { name: /Sipho Dlamini/ }));
  return screen.findByRole("dialog", { name: "Transaction Details" });
}

const smsRow = (dialog: HTMLElement) => within(dialog).getByText("Voucher SMS", { selector: "dt" }).nextElementSibling as HTMLElement;

describe("transaction details: the recipient's voucher SMS", () => {
  it.each([
    [SmsDeliveryStatus.QUEUED, "Sending the SMS to +27 82 123 4567…"],
    [SmsDeliveryStatus.SENT, "SMS sent to +27 82 123 4567 · waiting for the network's delivery report"],
  ])("status %s reads %s", async (status, text) => {
    const transfer = completed(makeTransfer());
    const { user } = renderWithSms(transfer, () => withChanges(transfer, { smsDelivery: sms({ status }) }));
    const dialog = await openDialog(user);
    expect(await within(dialog).findByText(text)).toBeInTheDocument();
  });

  it("delivered: the number and the time of delivery in Johannesburg", async () => {
    const transfer = completed(makeTransfer());
    const at = Date.now() - 1000;
    const { user } = renderWithSms(transfer, () =>
      withChanges(transfer, { smsDelivery: sms({ status: SmsDeliveryStatus.DELIVERED, updatedAt: timestampFromMs(at) }) }),
    );
    const dialog = await openDialog(user);
    expect(await within(dialog).findByText(`SMS delivered to +27 82 123 4567 at ${saClock.format(at)}`)).toBeInTheDocument();
    expect(smsRow(dialog).querySelector("[aria-live]")).toHaveAttribute("aria-live", "polite");
  });

  it("failed: says so, with the reason", async () => {
    const transfer = completed(makeTransfer());
    const { user } = renderWithSms(transfer, () =>
      withChanges(transfer, {
        smsDelivery: sms({ status: SmsDeliveryStatus.FAILED, failureReason: "The number is not reachable." }),
      }),
    );
    const dialog = await openDialog(user);
    expect(await within(dialog).findByText("We could not deliver the SMS to +27 82 123 4567")).toBeInTheDocument();
    expect(smsRow(dialog)).toHaveTextContent("The number is not reachable.");
    expect(within(smsRow(dialog)).getByText("We could not deliver the SMS to +27 82 123 4567").closest("[aria-live]")).toHaveClass("text-red-700");
    // The PIN went in that SMS: the dialog does not say it was sent.
    expect(within(dialog).getByText("PIN", { selector: "dt" }).nextElementSibling).toHaveTextContent("In the voucher SMS, which was not delivered");
  });

  it("no voucher, no SMS row; no report yet is said plainly", async () => {
    const pending = makeTransfer();
    const { user, unmount } = renderWithSms(pending, () => pending);
    let dialog = await openDialog(user);
    expect(within(dialog).queryByText("Voucher SMS")).not.toBeInTheDocument();
    unmount();

    const transfer = completed(makeTransfer());
    const again = renderWithSms(transfer, () => transfer);
    dialog = await openDialog(again.user);
    expect(await within(dialog).findByText("No delivery report yet")).toBeInTheDocument();
  });

  it("a cancelled voucher's SMS still reads delivered: the cancel's answer, without the SMS, does not erase it", async () => {
    const transfer = completed(makeTransfer());
    const at = Date.now() - 1000;
    const cancelled = withChanges(transfer, {
      voucher: create(VoucherSchema, { number: transfer.voucher?.number, collectionStatus: CollectionStatus.CANCELLED }),
      refundStatus: RefundStatus.PENDING,
      updatedAt: timestampFromMs(Date.now()),
    });
    const { user } = renderWithSms(
      transfer,
      () => withChanges(transfer, { smsDelivery: sms({ status: SmsDeliveryStatus.DELIVERED, updatedAt: timestampFromMs(at) }) }),
      undefined,
      cancelled,
    );
    const dialog = await openDialog(user);
    const delivered = `SMS delivered to +27 82 123 4567 at ${saClock.format(at)}`;
    await within(dialog).findByText(delivered);
    await user.click(within(dialog).getByRole("button", { name: "Cancel voucher" }));
    await user.click(within(await screen.findByRole("alertdialog")).getByRole("button", { name: "Yes, cancel voucher" }));
    expect(await screen.findByText("Voucher cancelled")).toBeInTheDocument();
    expect(await within(dialog).findByText("Cancelled · refund pending")).toBeInTheDocument();
    expect(within(dialog).getByText(delivered)).toBeInTheDocument();
    expect(within(dialog).queryByText("No delivery report yet")).not.toBeInTheDocument();
  });

  it("follows the live stream: sent, then delivered, without a reload; a transfer update keeps it", async () => {
    const live = liveFeed();
    const transfer = completed(makeTransfer());
    let reads = 0;
    const { user } = renderWithSms(
      transfer,
      () => {
        reads += 1;
        return withChanges(transfer, { smsDelivery: sms({ status: SmsDeliveryStatus.SENT, updatedAt: timestampFromMs(Date.now() - 60_000) }) });
      },
      live,
    );
    const dialog = await openDialog(user);
    await within(dialog).findByText("SMS sent to +27 82 123 4567 · waiting for the network's delivery report");
    live.push({ cursor: "1", event: { case: "heartbeat", value: {} } });

    const deliveredAt = Date.now();
    live.push({
      cursor: "2",
      event: {
        case: "smsDeliveryChanged",
        value: { transferId: transfer.id, smsDelivery: sms({ status: SmsDeliveryStatus.DELIVERED, updatedAt: timestampFromMs(deliveredAt) }) },
      },
    });
    const delivered = `SMS delivered to +27 82 123 4567 at ${saClock.format(deliveredAt)}`;
    expect(await within(dialog).findByText(delivered)).toBeInTheDocument();

    // A late report of an earlier state does not undo it; nor does the transfer's own update,
    // which does not carry the SMS.
    live.push({
      cursor: "3",
      event: {
        case: "smsDeliveryChanged",
        value: { transferId: transfer.id, smsDelivery: sms({ status: SmsDeliveryStatus.SENT, updatedAt: timestampFromMs(deliveredAt - 5000) }) },
      },
    });
    live.push({ cursor: "4", event: { case: "transferUpdated", value: { transfer } } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(within(dialog).getByText(delivered)).toBeInTheDocument();
    expect(reads).toBe(1);
  });

  it("a report that the SMS failed reaches the dialog live, with its reason, and warns once", async () => {
    const live = liveFeed();
    const transfer = completed(makeTransfer());
    const { user } = renderWithSms(
      transfer,
      () => withChanges(transfer, { smsDelivery: sms({ status: SmsDeliveryStatus.SENT, updatedAt: timestampFromMs(Date.now() - 60_000) }) }),
      live,
    );
    const dialog = await openDialog(user);
    await within(dialog).findByText("SMS sent to +27 82 123 4567 · waiting for the network's delivery report");
    const report = {
      transferId: transfer.id,
      smsDelivery: sms({ status: SmsDeliveryStatus.FAILED, updatedAt: timestampFromMs(Date.now()), failureReason: "The number is not reachable." }),
    };
    live.push({ cursor: "1", event: { case: "smsDeliveryChanged", value: report } });
    expect(await within(dialog).findByText("The number is not reachable.")).toBeInTheDocument();
    expect(await screen.findByText("Voucher SMS not delivered")).toBeInTheDocument();
    expect(
      screen.getByText(
        "Sipho Dlamini's voucher SMS to +27 82 123 4567 was not delivered. The number is not reachable. Open the transfer to change the number or resend the SMS.",
      ),
    ).toBeInTheDocument();
    // The same report again (a reconnect's replay): no second warning.
    live.push({ cursor: "2", event: { case: "smsDeliveryChanged", value: report } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.getAllByText("Voucher SMS not delivered")).toHaveLength(1);
  });

  // The walk's F14: the dashboard is open, a voucher it has not listed yet is locked at an ATM
  // (the live event seeds the transfer's cache, without the SMS's state), then the sender opens
  // it. The dialog reads the SMS's state rather than trusting the event's silence about it.
  describe("a transfer first seen through a live event", () => {
    function renderLockedLater(read: (locked: Transfer) => Transfer) {
      const live = liveFeed();
      const other = completed(makeTransfer({ recipientName: "Thandi Mokoena", recipientPhone: "+27831112222" }));
      const locked = withVoucher(completed(makeTransfer()), { lockedUntil: timestampFromMs(Date.now() + 86_400_000) });
      let listed = [other];
      let reads = 0;
      const utils = renderApp("/dashboard", {
        session: SIGNED_IN,
        routes: (r) => {
          r.rpc(TransfersService.method.listTransfers, () => ({ transfers: listed, totalCount: listed.length }));
          r.rpc(TransfersService.method.getTransfer, (request) => {
            reads += 1;
            if (request.id !== locked.id) throw new ConnectError("transfer not found", Code.NotFound);
            return { transfer: read(locked) };
          });
          live.register(r);
        },
      });
      return {
        ...utils,
        locked,
        reads: () => reads,
        async lock() {
          const recent = await screen.findByRole("region", { name: "Recent Transactions" });
          await within(recent).findByRole("button", { name: /Thandi Mokoena/ });
          listed = [locked, other];
          live.push({ cursor: "1", event: { case: "transferUpdated", value: { transfer: locked } } });
          expect(await screen.findByText("Voucher locked")).toBeInTheDocument();
          await within(recent).findByRole("button", { name: /Sipho Dlamini/ });
        },
      };
    }

    it("reads the delivered SMS when opened, instead of 'No delivery report yet'", async () => {
      const at = Date.now() - 60_000;
      const app = renderLockedLater((locked) =>
        withChanges(locked, { smsDelivery: sms({ status: SmsDeliveryStatus.DELIVERED, updatedAt: timestampFromMs(at) }) }),
      );
      await app.lock();
      expect(app.reads()).toBe(0); // the event seeded the cache; nothing read the transfer yet
      const dialog = await openDialog(app.user);
      expect(await within(dialog).findByText(`SMS delivered to +27 82 123 4567 at ${saClock.format(at)}`)).toBeInTheDocument();
      expect(within(dialog).queryByText("No delivery report yet")).not.toBeInTheDocument();
      expect(app.reads()).toBe(1);
      expect(within(dialog).getByText(/Locked until/, { selector: "p span" })).toBeInTheDocument();
    });

    it("says the state could not be checked, not 'No delivery report yet', when the read fails", async () => {
      const app = renderLockedLater(() => {
        throw new ConnectError("The service is unavailable.", Code.Unavailable);
      });
      await app.lock();
      const dialog = await openDialog(app.user);
      expect(await within(dialog).findByText(SMS_NOT_CHECKED)).toBeInTheDocument();
      expect(within(dialog).queryByText("No delivery report yet")).not.toBeInTheDocument();
    });
  });
});
