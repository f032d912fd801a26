import { CollectionStatus } from "@/gen/thumela/bff/v1/bff_pb";
import type { Voucher } from "@/gen/thumela/bff/v1/bff_pb";
import { toDate } from "@/lib/date";

/**
 * When the lock on a voucher that awaits collection ends, while wrong PINs or phone numbers
 * typed at ATMs keep it locked (after 5, for 24 hours); undefined otherwise. The history's line,
 * the details dialog and the live "Voucher locked" notice all ask this.
 */
export function voucherLockedUntil(voucher: Voucher | undefined, now: number = Date.now()): Date | undefined {
  const until = toDate(voucher?.lockedUntil);
  return voucher?.collectionStatus === CollectionStatus.AWAITING_COLLECTION && until && until.getTime() > now ? until : undefined;
}
