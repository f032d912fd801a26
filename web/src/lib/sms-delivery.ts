import { clone } from "@bufbuild/protobuf";
import { TransferSchema } from "@/gen/thumela/bff/v1/bff_pb";
import type { Transfer } from "@/gen/thumela/bff/v1/bff_pb";

/**
 * `next` with the voucher SMS's state this tab already knew (`known`), when `next` carries none.
 * Only GetTransfer and SmsDeliveryChanged carry that state: a transfer's live events and the
 * answers of CancelTransfer, ResendVoucher and ChangeRecipientPhone do not, and writing them
 * over the cached transfer made the open dialog read "No delivery report yet" for an SMS that
 * had been delivered. A re-issued voucher (a new number) goes out in a new SMS, so the old
 * state is dropped then.
 */
export function withKnownSms(next: Transfer, known: Transfer | undefined): Transfer {
  if (next.smsDelivery || !known?.smsDelivery || known.voucher?.number !== next.voucher?.number) return next;
  return Object.assign(clone(TransferSchema, next), { smsDelivery: known.smsDelivery });
}
