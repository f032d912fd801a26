// Test data for the transfers feature's tests (never imported by the app).
import { clone, create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  Bank,
  BankOptionSchema,
  CardBrand,
  CollectionStatus,
  PaymentMethodSchema,
  PaymentMethodType,
  TransferSchema,
  TransferStatus,
  VoucherSchema,
} from "@/gen/thumela/bff/v1/bff_pb";
import type { Transfer, Voucher } from "@/gen/thumela/bff/v1/bff_pb";

/** en-ZA groups thousands with a no-break space. */
export const nbsp = "\u00a0";

export const BANKS = [
  create(BankOptionSchema, { bank: Bank.STANDARD_BANK, displayName: "Standard Bank", baseFeeCents: 1095n, percentageFeeBps: 30 }),
  create(BankOptionSchema, { bank: Bank.ABSA, displayName: "ABSA", baseFeeCents: 850n, percentageFeeBps: 30 }),
  create(BankOptionSchema, { bank: Bank.FNB, displayName: "FNB", baseFeeCents: 1095n, percentageFeeBps: 30 }),
  create(BankOptionSchema, { bank: Bank.NEDBANK, displayName: "Nedbank", baseFeeCents: 850n, percentageFeeBps: 30 }),
  create(BankOptionSchema, { bank: Bank.CAPITEC, displayName: "Capitec", baseFeeCents: 1000n, percentageFeeBps: 30 }),
];

export const CARDS = [
  create(PaymentMethodSchema, {
    id: "pm-1",
    name: "Everyday Visa",
    type: PaymentMethodType.CARD,
    brand: CardBrand.VISA,
    lastFour: "4242",
    expiryMonth: 8,
    expiryYear: 2029,
  }),
  create(PaymentMethodSchema, {
    id: "pm-2",
    name: "Travel Mastercard",
    type: PaymentMethodType.CARD,
    brand: CardBrand.MASTERCARD,
    lastFour: "4444",
    expiryMonth: 1,
    expiryYear: 2030,
    isDefault: true,
  }),
];

let counter = 0;

/** A transfer with sensible defaults: R150.00 to Sipho Dlamini at Standard Bank, pending. */
export function makeTransfer(init: MessageInitShape<typeof TransferSchema> = {}): Transfer {
  counter += 1;
  const defaults: MessageInitShape<typeof TransferSchema> = {
    id: `0b1c2d3e-${String(counter).padStart(4, "0")}-4000-8000-000000000000`,
    recipientName: "Sipho Dlamini",
    recipientPhone: "+27821234567",
    bank: Bank.STANDARD_BANK,
    amountCents: 15000n,
    feeCents: 1140n,
    totalAmountCents: 16140n,
    status: TransferStatus.PENDING,
    paymentMethodId: "pm-2",
    paymentMethodName: "Travel Mastercard",
    paymentMethodLastFour: "4444",
    withdrawalLocation: { name: "Nearest ATM", type: "default" },
    createdAt: timestampFromMs(Date.now() - 60_000),
  };
  return create(TransferSchema, { ...defaults, ...init } as MessageInitShape<typeof TransferSchema>);
}

/** A copy of a transfer with some scalar fields changed (e.g. its status). */
export function withChanges(transfer: Transfer, changes: Partial<Omit<Transfer, "$typeName" | "$unknown">>): Transfer {
  return Object.assign(clone(TransferSchema, transfer), changes);
}

/** The same transfer, completed, with an unclaimed voucher valid for 7 days. */
export function completed(transfer: Transfer, changes: Partial<Omit<Transfer, "$typeName" | "$unknown">> = {}): Transfer {
  return withChanges(transfer, {
    status: TransferStatus.COMPLETED,
    voucher: create(VoucherSchema, {
      number: "4820193746",
      collectionStatus: CollectionStatus.AWAITING_COLLECTION,
      expiresAt: timestampFromMs(Date.now() + 7 * 86_400_000),
    }),
    ...changes,
  });
}

/** A copy of a transfer with some of its voucher's fields changed (a voucher is made if none). */
export function withVoucher(transfer: Transfer, changes: Partial<Omit<Voucher, "$typeName" | "$unknown">>): Transfer {
  const voucher = Object.assign(transfer.voucher ? clone(VoucherSchema, transfer.voucher) : create(VoucherSchema), changes);
  return withChanges(transfer, { voucher });
}
