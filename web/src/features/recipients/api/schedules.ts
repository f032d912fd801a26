import { ScheduleFrequency } from "@/gen/thumela/bff/v1/bff_pb";
import type { GetLimitPolicyResponse } from "@/gen/thumela/bff/v1/bff_pb";
import { addDays } from "@/lib/date";
import { scheduleLimitProblem } from "@/lib/limit-check";
import { parseRandToCents, randAmountIssue } from "@/lib/money";
import { z } from "@/lib/zod";

/** The words of the scheduled sends on /recipients. */
export const SCHEDULE_MESSAGES = {
  heading: "Scheduled sends",
  intro: "Money that goes out by itself, every week or every month.",
  loading: "Loading your scheduled sends...",
  empty: "No scheduled sends yet. Choose “Schedule a send” on a saved recipient to send them money every week or month.",
  loadFailed: "We couldn't load your scheduled sends.",
  created: "Scheduled send created",
  createFailed: "Couldn't schedule the send",
  createFailedFallback: "There was a problem scheduling this send.",
  paused: "Scheduled send paused",
  resumed: "Scheduled send resumed",
  deleted: "Scheduled send deleted",
  actionFailed: "That didn't work",
  actionFailedFallback: "There was a problem changing this scheduled send. Please try again.",
  amountInvalid: "Please enter a valid amount greater than zero.",
  /** Text that is no amount ("abc", "1.234"): the wizard's words for it, not "greater than zero". */
  amountUnreadable: "We can't read that amount. Enter it in rand, such as 150 or 1 500.",
  amountNotes: "ATMs pay out notes: choose an amount in multiples of R10.",
  startRequired: "Please choose the date of the first send.",
  startPast: "The first send can't be before today.",
  startTooFar: "The first send must be within a year from today.",
  endBeforeStart: "The end date can't be before the first send.",
  cardRequired: "Please select a card to continue.",
  questionToast: "Please answer the question below, then press Schedule send again.",
  feeNotShown: "Check what each send charges",
  feeNotShownHint: "The fee and the total per send are shown above the buttons. Check them, then press Schedule send again.",
  feeFailed: "The fee could not be worked out right now. Please try again.",
} as const;

/** The smallest note ATMs pay out, in cents: every amount is a multiple of it. */
const NOTE_CENTS = 1_000n;

/**
 * The 'Schedule a send' form; the server checks everything again (limits, the card). The
 * amount is refused here, in the server's words, when CreateSchedule would refuse it on the
 * limits (the minimum, the per-transfer limit: lib/limit-check.ts's scheduleLimitProblem on the
 * policy); while the policy is unknown, only the server decides.
 */
export function scheduleSchema(today: string, policy?: GetLimitPolicyResponse) {
  const latest = addDays(today, 366);
  return z
    .object({
      amount: z.string().superRefine((value, ctx) => {
        const issue = randAmountIssue(value);
        const cents = parseRandToCents(value) ?? 0n;
        if (issue === "notAboveZero") ctx.addIssue({ code: "custom", message: SCHEDULE_MESSAGES.amountInvalid });
        else if (issue === "unreadable") ctx.addIssue({ code: "custom", message: SCHEDULE_MESSAGES.amountUnreadable });
        else if (cents % NOTE_CENTS !== 0n) ctx.addIssue({ code: "custom", message: SCHEDULE_MESSAGES.amountNotes });
        else {
          const problem = scheduleLimitProblem(cents, policy);
          if (problem) ctx.addIssue({ code: "custom", message: problem });
        }
      }),
      frequency: z.enum(["weekly", "monthly"]),
      startDate: z
        .string()
        .min(1, SCHEDULE_MESSAGES.startRequired)
        .refine((d) => d >= today, SCHEDULE_MESSAGES.startPast)
        .refine((d) => d <= latest, SCHEDULE_MESSAGES.startTooFar),
      endDate: z.string(),
      paymentMethodId: z.string().min(1, SCHEDULE_MESSAGES.cardRequired),
    })
    .refine((v) => !v.endDate || !v.startDate || v.endDate >= v.startDate, {
      path: ["endDate"],
      message: SCHEDULE_MESSAGES.endBeforeStart,
    });
}
export type ScheduleFormValues = z.infer<ReturnType<typeof scheduleSchema>>;

export const FREQUENCY_OF: Record<ScheduleFormValues["frequency"], ScheduleFrequency> = {
  weekly: ScheduleFrequency.WEEKLY,
  monthly: ScheduleFrequency.MONTHLY,
};
