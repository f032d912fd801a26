import type { Client } from "@connectrpc/connect";
import { useEffect, useState } from "react";
import type { TransfersService } from "@/gen/thumela/bff/v1/bff_pb";
import { hasErrorInfo, paidBefore } from "@/lib/step-up";

/**
 * The first-payment question (docs/scam-friction.md). A first transfer to a phone the sender
 * has never paid needs their tick on "Do you know {name} personally? ..."; the transfers
 * service refuses one without it (FailedPrecondition, ErrorInfo RECIPIENT_CONFIRMATION_REQUIRED)
 * and records the answer on the transfer. The wizard predicts the question from the sender's
 * completed transfers, as the step-up's prediction does, and treats the refusal as the backstop.
 */
export const RECIPIENT_CONFIRMATION_REASON = "RECIPIENT_CONFIRMATION_REQUIRED";

export function isRecipientConfirmationRequired(error: unknown): boolean {
  return hasErrorInfo(error, RECIPIENT_CONFIRMATION_REASON);
}

/** The question, verbatim from the issue, for the recipient's name. */
export function recipientQuestion(name: string): string {
  return `Do you know ${name} personally? Never send money to someone you have only met online, or to someone who says they are from a bank or the police.`;
}

/**
 * Who an answer is about: the name and the phone (E.164) as they will be sent. An answer given
 * for one recipient does not carry over to another after the sender goes back and edits.
 */
export function recipientKey(name: string, phone: string | undefined): string {
  return `${name.trim()}\u0000${phone ?? ""}`;
}

/**
 * Whether the sender has paid phone before: "loading" while the history is read, undefined
 * when it cannot be read or there is no valid phone (the server then decides), and nothing is
 * read while inactive (not on the review step).
 */
export function usePaidBefore(
  transfers: Client<typeof TransfersService>,
  phone: string | undefined,
  active: boolean,
): boolean | undefined | "loading" {
  const [answer, setAnswer] = useState<{ phone: string; paid: boolean | undefined }>();
  useEffect(() => {
    if (!active || !phone) return;
    let current = true;
    void paidBefore(transfers, phone).then((paid) => {
      if (current) setAnswer({ phone, paid });
    });
    return () => {
      current = false;
    };
  }, [transfers, phone, active]);
  if (!active || !phone) return undefined;
  return answer?.phone === phone ? answer.paid : "loading";
}
