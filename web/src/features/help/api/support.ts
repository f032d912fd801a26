import { Code, ConnectError } from "@connectrpc/connect";
import { useMutation } from "@connectrpc/connect-query";
import { useEffect, useRef } from "react";
import type { FieldValues, Resolver } from "react-hook-form";
import { SupportMessageKind, SupportService } from "@/gen/thumela/bff/v1/bff_pb";
import { errorMessage, fieldViolations, hasCode, retryAfterSeconds } from "@/lib/errors";
import type { FieldViolation } from "@/lib/errors";
import { useSessionQuery } from "@/lib/session-query";

/**
 * Sends a support message (Help Center → Contact Us, /contact, /feedback) to the support inbox;
 * the answer carries the ticket reference.
 */
export function useSubmitSupportMessage() {
  return useMutation(SupportService.method.submitSupportMessage);
}

/**
 * Who is writing, for the public forms: a signed-in sender's reply goes to the account's
 * e-mail (the BFF fills it in); a visitor must give one. Unauthenticated is the normal answer
 * for a visitor (made without a request when the browser has no signed-in hint), so it is not
 * retried.
 */
export function useSignedInEmail(): { email: string | undefined; loading: boolean } {
  const session = useSessionQuery({ staleTime: 60_000, retry: false });
  return { email: session.data?.user?.email || undefined, loading: session.isPending };
}

/**
 * Where the reply to a support form goes (Help Center → Contact Us, /feedback): the signed-in
 * sender's address, or the one a visitor types. `resolver` validates with `visitor` (the
 * address required) unless a session is known when the form is submitted, not when it was
 * made, and `replyEmail` is what the request carries: "" for a signed-in sender, whose address
 * the BFF adds.
 */
export function useReplyTo<T extends FieldValues>(signedIn: Resolver<T>, visitor: Resolver<T>) {
  const { email: accountEmail, loading } = useSignedInEmail();
  const known = useRef(false);
  useEffect(() => {
    known.current = accountEmail !== undefined;
  }, [accountEmail]);
  const resolver: Resolver<T> = (values, context, options) => (known.current ? signedIn : visitor)(values, context, options);
  const replyEmail = (typed: string) => (known.current ? "" : typed.trim());
  return { accountEmail, loading, resolver, replyEmail };
}

export const HELP_KIND: Record<"question" | "issue" | "feedback", SupportMessageKind> = {
  question: SupportMessageKind.QUESTION,
  issue: SupportMessageKind.ISSUE,
  feedback: SupportMessageKind.FEEDBACK,
};

/** The title of the toast when a message did not go. */
export const NOT_SENT_TITLE = "Message not sent";

const NOT_SENT_FALLBACK = "We could not send your message. Please check your connection and try again.";

/** "Too many messages from your connection. Please try again in N minutes." */
export function tooManyMessages(retryAfter: number | undefined): string {
  if (!retryAfter || retryAfter <= 0) return "Too many messages from your connection. Please try again later.";
  const minutes = Math.max(1, Math.ceil(retryAfter / 60));
  return `Too many messages from your connection. Please try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}.`;
}

/**
 * The support inbox's own refusal, whose budget it names: a visitor's connection, or a signed-in
 * sender's account ("Too many messages from your account. Please try again in 7 minutes.").
 */
const SUPPORT_LIMIT = /^Too many messages from your (connection|account)\. Please try again (in \d+ minutes?|later)\.$/;

/** What to tell the sender when the message did not go, and which fields the server refused. */
export function supportFailure(error: unknown): { description: string; violations: FieldViolation[] } {
  if (hasCode(error, Code.ResourceExhausted)) {
    // The service's sentence when it is the inbox's limit; a limit of the BFF's says the same of
    // the connection.
    const message = error instanceof ConnectError ? error.rawMessage.trim() : "";
    const description = SUPPORT_LIMIT.test(message) ? message : tooManyMessages(retryAfterSeconds(error));
    return { description, violations: [] };
  }
  const violations = hasCode(error, Code.InvalidArgument) ? fieldViolations(error) : [];
  const description = violations[0]?.description || errorMessage(error, NOT_SENT_FALLBACK);
  return { description, violations };
}

/** The spec's thank-you sentence, then the ticket to quote. */
export function withReference(sentence: string, ticket: string): string {
  return ticket ? `${sentence} Your reference is ${ticket}.` : sentence;
}
