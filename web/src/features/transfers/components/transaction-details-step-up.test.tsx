import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { create } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { configure, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { Bank, CollectionStatus, RefundStatus, SecurityService, TransfersService, VoucherSchema } from "@/gen/thumela/bff/v1/bff_pb";
import type { ChangeRecipientPhoneRequest, FinishStepUpRequest, Transfer } from "@/gen/thumela/bff/v1/bff_pb";
import { errorWithDetails } from "@/test/error-details";
import { SIGNED_IN, renderApp } from "@/test/render-app";
import { expectToast } from "@/test/toasts";
import { forgetStepUp } from "@/lib/step-up";
import { completed, makeTransfer, withChanges, withVoucher } from "../test-utils";

configure({ asyncUtilTimeout: 4000 });
vi.setConfig({ testTimeout: 20_000 });

const PASSWORD = "Correct-Horse-42";

function stepUpRequired() {
  const value = new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .string("STEP_UP_REQUIRED")
    .tag(2, WireType.LengthDelimited)
    .string("transfers.thumela.co.za")
    .finish();
  return errorWithDetails("Please confirm it's you before sending this money.", Code.FailedPrecondition, { type: "google.rpc.ErrorInfo", value });
}

function awaiting(): Transfer {
  return completed(makeTransfer({ recipientName: "Thandi Mokoena", bank: Bank.FNB, amountCents: 50000n }), {
    refundStatus: RefundStatus.NONE,
    voucher: create(VoucherSchema, {
      number: "4820193746",
      resendsLeft: 3,
      phoneChangesLeft: 3,
      collectionStatus: CollectionStatus.AWAITING_COLLECTION,
      expiresAt: timestampFromMs(Date.now() + 7 * 86_400_000),
    }),
  });
}

describe("transaction details: a new phone needs 'Confirm it's you'", () => {
  it("asks for the password when the server wants a step-up, then sends the voucher to the number", async () => {
    forgetStepUp();
    let current = awaiting();
    let steppedUp = false;
    const calls = { change: [] as ChangeRecipientPhoneRequest[], finish: [] as FinishStepUpRequest[] };
    const { user } = renderApp("/dashboard", {
      session: SIGNED_IN,
      routes: (r) => {
        r.rpc(TransfersService.method.listTransfers, () => ({ transfers: [current], totalCount: 1 }));
        r.rpc(TransfersService.method.getTransfer, () => ({ transfer: current }));
        r.rpc(TransfersService.method.changeRecipientPhone, (request) => {
          calls.change.push(request);
          if (!steppedUp) throw stepUpRequired();
          current = withChanges(withVoucher(current, { number: "6041592837", phoneChangesLeft: 2 }), { recipientPhone: "+27835550101" });
          return { transfer: current };
        });
        r.rpc(SecurityService.method.beginStepUp, () => ({ passkey: false }));
        r.rpc(SecurityService.method.finishStepUp, (request) => {
          calls.finish.push(request);
          steppedUp = true;
          return { steppedUpUntil: timestampFromMs(Date.now() + 5 * 60_000) };
        });
      },
    });
    const recent = await screen.findByRole("region", { name: "Recent Transactions" });
    await user.click(await within(recent).findByRole("button", { name: /Thandi Mokoena/ }));
    const details = await screen.findByRole("dialog", { name: "Transaction Details" });
    await user.click(within(details).getByRole("button", { name: "Change phone number" }));
    const form = within(details).getByRole("form", { name: "Change phone number" });
    await user.type(within(form).getByLabelText("New phone number"), "083 555 0101");
    await user.click(within(form).getByRole("button", { name: "Send to this number" }));

    const stepUp = await screen.findByRole("dialog", { name: "Confirm it's you" });
    expect(calls.change).toHaveLength(1);
    await user.type(await within(stepUp).findByLabelText("Password"), PASSWORD);
    await user.click(within(stepUp).getByRole("button", { name: "Confirm and send" }));
    await expectToast("Phone number changed");
    expect(calls.change).toHaveLength(2);
    expect(calls.change[1]).toMatchObject({ id: current.id, recipientPhone: "083 555 0101" });
    expect(calls.finish[0].proof).toEqual({ case: "password", value: PASSWORD });
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Confirm it's you" })).not.toBeInTheDocument());
    expect(screen.getByRole("dialog", { name: "Transaction Details" })).toBeInTheDocument();
  });
});
