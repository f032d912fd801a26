import { useQuery } from "@connectrpc/connect-query";
import { RecipientsService } from "@/gen/thumela/bff/v1/bff_pb";
import type { Recipient } from "@/gen/thumela/bff/v1/bff_pb";
import { saMobileE164 } from "@/lib/phone";

/**
 * The sender's saved recipients (RecipientsService), most recently paid first. Shared by the
 * /recipients page and the send-money wizard (features do not import each other); the live
 * stream's recipients_changed invalidates every query of it.
 */
export function useSavedRecipients(query = "") {
  return useQuery(RecipientsService.method.listRecipients, { query });
}

/** The saved recipient with the phone (in any notation), if there is one. */
export function findSavedRecipient(recipients: readonly Recipient[] | undefined, phone: string): Recipient | undefined {
  const e164 = saMobileE164(phone) ?? phone.trim();
  if (!e164) return undefined;
  return recipients?.find((recipient) => recipient.phone === e164);
}
