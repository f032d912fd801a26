import { create } from "@bufbuild/protobuf";
import { GetLimitsResponseSchema, LimitKind } from "@/gen/thumela/bff/v1/bff_pb";
import type { GetLimitPolicyResponse, GetLimitsResponse } from "@/gen/thumela/bff/v1/bff_pb";
import { formatMoney } from "./money";

/**
 * Why the transfers service would refuse this amount on the sender's limits, in its words
 * (services/transfers/internal/domain/limits.go, LimitError), worked out from GetLimits, the
 * figures and usage the service itself reports; undefined when it would pass or the figures
 * are not known. The wizard refuses on the amount step what the server would refuse at the
 * end, after the recipient, the card and "Confirm it's you". The server still decides: the
 * figures may have moved since they were read. It lives in lib because the wizard
 * (features/transfers) and 'Schedule a send' (features/recipients) both ask it, and features
 * do not import each other.
 *
 * As the server does: below the minimum first; then, of the per-transfer limit and what is
 * left today, this month and this year, the one with the least room that the amount exceeds
 * (the shorter period on a tie), so that "you can still send" is always true.
 */
export function limitProblem(amountCents: bigint, limits: GetLimitsResponse | undefined): string | undefined {
  if (!limits) return undefined;
  const find = (kind: LimitKind) => limits.limits.find((limit) => limit.kind === kind);
  const minimum = find(LimitKind.MINIMUM)?.limitCents;
  if (minimum !== undefined && amountCents < minimum) return `The minimum transfer is ${formatMoney(minimum)}.`;

  // In the server's order; GetLimits' per-transfer "remaining" is already the least of all, so
  // the per-transfer room is its limit.
  const rooms: Array<{ kind: LimitKind; limit: bigint; room: bigint }> = [];
  for (const kind of [LimitKind.PER_TRANSFER, LimitKind.DAILY, LimitKind.MONTHLY, LimitKind.YEARLY]) {
    const usage = find(kind);
    if (!usage) continue;
    const room = kind === LimitKind.PER_TRANSFER ? usage.limitCents : usage.remainingCents;
    rooms.push({ kind, limit: usage.limitCents, room: room > 0n ? room : 0n });
  }
  let binding: (typeof rooms)[number] | undefined;
  for (const r of rooms) {
    if (r.room < amountCents && (binding === undefined || r.room < binding.room)) binding = r;
  }
  if (!binding) return undefined;

  const limit = formatMoney(binding.limit);
  const room = formatMoney(binding.room);
  // Less left than the smallest transfer: nothing more can go until the period ends.
  const reached = binding.room < (minimum ?? 1n);
  switch (binding.kind) {
    case LimitKind.PER_TRANSFER:
      return `This transfer exceeds the limit of ${limit} per transfer. You can send up to ${room} in one transfer.`;
    case LimitKind.DAILY:
      return reached
        ? `You have reached your daily limit of ${limit}. You can send again tomorrow.`
        : `This transfer exceeds your daily limit of ${limit}. You can still send ${room} today.`;
    case LimitKind.MONTHLY:
      return reached
        ? `You have reached your monthly limit of ${limit}. You can send again next month.`
        : `This transfer exceeds your monthly limit of ${limit}. You can still send ${room} this month.`;
    default:
      return reached
        ? `You have reached your yearly limit of ${limit}. You can send again next year.`
        : `This transfer exceeds your yearly limit of ${limit}. You can still send ${room} this year.`;
  }
}

/**
 * Why the transfers service would refuse to schedule this amount, in its words; undefined when
 * it would pass or the policy is not known. CreateSchedule checks the limits with no usage
 * (services/transfers/internal/app/schedules.go: limits.Check(amount, Usage{})): what has been
 * sent today, this month or this year says nothing about a send next week, which is checked on
 * its own day. So: the minimum, and the least of the per-transfer, daily, monthly and yearly
 * limits themselves (with the default figures, the per-transfer limit). The same check as the
 * wizard's, on the policy (GetLimitPolicy) as if nothing had been sent.
 */
export function scheduleLimitProblem(amountCents: bigint, policy: GetLimitPolicyResponse | undefined): string | undefined {
  if (!policy) return undefined;
  const unused = create(GetLimitsResponseSchema, {
    limits: policy.limits.map(({ kind, limitCents }) => ({ kind, limitCents, remainingCents: kind === LimitKind.MINIMUM ? 0n : limitCents })),
  });
  return limitProblem(amountCents, unused);
}
