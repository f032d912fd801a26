import { Copy, Gift, Link2, Share2, UserRoundPlus, Users } from "lucide-react";
import { useEffect } from "react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { CreditMovementKind } from "@/gen/thumela/bff/v1/bff_pb";
import type { CreditMovement, GetCreditResponse } from "@/gen/thumela/bff/v1/bff_pb";
import { useCredit } from "@/lib/credit";
import { formatRecentDate, toDate } from "@/lib/date";
import { formatMoney } from "@/lib/money";
import { NEW_USER_CREDIT, REFERRAL_STEPS, REFERRER_REWARD } from "../content/rewards";
import { referralLink } from "../lib/referral-link";

const STEP_ICONS = [Share2, UserRoundPlus, Gift];

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false; // no clipboard permission, or an insecure page
  }
}

const copyFailed = () =>
  toast.error("Couldn't copy", { description: "Your browser blocked the clipboard. Select the text and copy it yourself." });

export const REFERRAL_MESSAGES = {
  loading: "Loading your referral code...",
  loadFailed: "We couldn't load your referral details.",
  noMovements: "No credit yet. When a friend joins with your code, you see it here.",
} as const;

const MOVEMENT_LABEL: Record<CreditMovementKind, string> = {
  [CreditMovementKind.UNSPECIFIED]: "Credit",
  [CreditMovementKind.REFERRAL_WELCOME]: "Welcome credit for joining with a friend's code",
  [CreditMovementKind.REFERRAL_REWARD]: "Reward: a friend completed a first transfer",
  [CreditMovementKind.SPENT]: "Spent on a transfer",
  [CreditMovementKind.RETURNED]: "Returned from a transfer",
};

/**
 * /refer-friend: the user's own code as the transfers service keeps it (CreditService.GetCredit;
 * the server owns code → user), copy buttons for the code and the link, Share (the system share
 * sheet where the browser has one, otherwise, or when it fails, the link is copied: 'Copied
 * referral link!'; closing the sheet on purpose copies nothing), the friends joined, the rewards
 * earned, the credit left and its recent movements (live: credit_changed reads them again),
 * the three steps and the rewards.
 */
export function ReferFriend() {
  const credit = useCredit();

  useEffect(() => {
    if (credit.isError) toast.error(REFERRAL_MESSAGES.loadFailed, { description: "Please refresh the page and try again." });
  }, [credit.isError, credit.errorUpdatedAt]);

  return (
    <div className="mx-auto w-full max-w-4xl">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl dark:text-white">Refer a Friend</h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">
        Invite friends to Thumela: they get {NEW_USER_CREDIT} transfer credit, and you get {REFERRER_REWARD} for each friend
        who completes a first transfer. Transfer credit pays the fees of your transfers.
      </p>

      {credit.data?.referralCode ? (
        <CodeCard code={credit.data.referralCode} />
      ) : credit.isError ? (
        <Card className="mt-6 flex flex-col items-center gap-3 p-8 text-center">
          <p className="font-medium">{REFERRAL_MESSAGES.loadFailed}</p>
          <Button variant="outline" busy={credit.isFetching} onClick={() => void credit.refetch()}>
            Try again
          </Button>
        </Card>
      ) : (
        <Card className="mt-6 p-6">
          <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
            {REFERRAL_MESSAGES.loading}
          </p>
          <Skeleton className="mt-3 h-14 w-full" />
        </Card>
      )}

      {credit.data && <Figures credit={credit.data} />}

      <Steps />
    </div>
  );
}

function Figures({ credit }: { credit: GetCreditResponse }) {
  return (
    <section aria-labelledby="referral-figures" className="mt-8">
      <h2 id="referral-figures" className="text-lg font-semibold text-slate-900 dark:text-white">
        Your referrals and credit
      </h2>
      <dl className="mt-4 grid gap-4 sm:grid-cols-3">
        <Figure term="Friends joined" detail={`${credit.friendsRewarded} completed a first transfer`}>
          {credit.friendsJoined}
        </Figure>
        <Figure term="Rewards earned">{formatMoney(credit.rewardsEarnedCents)}</Figure>
        <Figure term="Credit left" detail="Pays the fees of your next transfers">
          {formatMoney(credit.balanceCents)}
        </Figure>
      </dl>
      <Card className="mt-4 p-5">
        <h3 id="credit-movements" className="font-semibold text-slate-900 dark:text-white">
          Recent credit
        </h3>
        {credit.recentMovements.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{REFERRAL_MESSAGES.noMovements}</p>
        ) : (
          <ul aria-labelledby="credit-movements" className="mt-2 divide-y divide-slate-200 dark:divide-slate-800">
            {credit.recentMovements.map((movement) => (
              <MovementRow key={movement.id} movement={movement} />
            ))}
          </ul>
        )}
      </Card>
    </section>
  );
}

function Figure({ term, detail, children }: { term: string; detail?: string; children: ReactNode }) {
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-5 dark:border-slate-800 dark:bg-slate-900">
      <dt className="text-sm text-slate-600 dark:text-slate-400">{term}</dt>
      <dd className="mt-1 text-2xl font-bold tabular-nums text-slate-900 dark:text-white">{children}</dd>
      {detail && <dd className="mt-1 text-xs text-slate-500 dark:text-slate-400">{detail}</dd>}
    </div>
  );
}

function MovementRow({ movement }: { movement: CreditMovement }) {
  const when = toDate(movement.occurredAt);
  const amount = movement.amountCents;
  return (
    <li className="flex items-center justify-between gap-4 py-2.5 text-sm">
      <span>
        <span className="block font-medium">{MOVEMENT_LABEL[movement.kind] ?? MOVEMENT_LABEL[CreditMovementKind.UNSPECIFIED]}</span>
        {when && (
          <time dateTime={when.toISOString()} className="text-slate-500 dark:text-slate-400">
            {formatRecentDate(when)}
          </time>
        )}
      </span>
      <span className={amount < 0n ? "font-semibold tabular-nums" : "font-semibold tabular-nums text-emerald-700 dark:text-emerald-400"}>
        {amount < 0n ? `−${formatMoney(-amount)}` : `+${formatMoney(amount)}`}
      </span>
    </li>
  );
}

function CodeCard({ code }: { code: string }) {
  const link = referralLink(code);

  const copyCode = async () => {
    if (await copyText(code)) toast.success("Referral code copied!");
    else copyFailed();
  };

  const copyLink = async () => {
    if (await copyText(link)) toast.success("Copied referral link!");
    else copyFailed();
  };

  const share = async () => {
    const data: ShareData = {
      title: "Join me on Thumela",
      text: `Send cash to any ATM in South Africa with Thumela. Sign up with my code ${code} and get ${NEW_USER_CREDIT} transfer credit.`,
      url: link,
    };
    if (typeof navigator.share === "function" && (typeof navigator.canShare !== "function" || navigator.canShare(data))) {
      try {
        await navigator.share(data);
        return;
      } catch (error) {
        if (error instanceof DOMException && error.name === "AbortError") return; // the user closed the sheet
      }
    }
    await copyLink();
  };

  return (
    <Card className="mt-6 p-6" aria-labelledby="referral-code-title">
      <h2 id="referral-code-title" className="text-sm font-medium text-slate-600 dark:text-slate-400">
        Your referral code
      </h2>
      <div className="mt-2 flex flex-col gap-3 sm:flex-row sm:items-center">
        <p
          className="flex-1 rounded-lg border border-dashed border-brand-300 bg-brand-50 px-4 py-3 text-center font-mono text-2xl font-bold tracking-widest text-brand-900 select-all dark:border-brand-800 dark:bg-brand-950 dark:text-brand-100"
          data-testid="referral-code"
        >
          {code}
        </p>
        <div className="flex flex-wrap gap-2">
          <Button variant="outline" onClick={() => void copyCode()} aria-label="Copy referral code">
            <Copy aria-hidden="true" className="size-4" />
            Copy
          </Button>
          {/* The visible words are the whole name (WCAG 2.5.3, label in name): a speech user says what they see. */}
          <Button variant="outline" onClick={() => void copyLink()}>
            <Link2 aria-hidden="true" className="size-4" />
            Copy referral link
          </Button>
          <Button onClick={() => void share()}>
            <Share2 aria-hidden="true" className="size-4" />
            Share
          </Button>
        </div>
      </div>
      <p className="mt-3 break-all text-sm text-slate-600 dark:text-slate-400">
        Your link:{" "}
        <span className="font-medium text-slate-800 dark:text-slate-200" data-testid="referral-link">
          {link}
        </span>
      </p>
    </Card>
  );
}

function Steps() {
  return (
    <>
      <section aria-labelledby="how-referral-works" className="mt-8">
        <h2 id="how-referral-works" className="text-lg font-semibold text-slate-900 dark:text-white">
          How it works
        </h2>
        <ol className="mt-4 grid gap-4 md:grid-cols-3">
          {REFERRAL_STEPS.map((step, index) => {
            const Icon = STEP_ICONS[index];
            return (
              <li key={step.title} className="rounded-xl border border-slate-200 bg-white p-5 dark:border-slate-800 dark:bg-slate-900">
                <div className="flex items-center gap-3">
                  <span className="flex size-10 items-center justify-center rounded-full bg-brand-50 text-brand-700 dark:bg-brand-950 dark:text-brand-300">
                    <Icon aria-hidden="true" className="size-5" />
                  </span>
                  <span className="text-sm font-medium text-slate-600 dark:text-slate-400">Step {index + 1}</span>
                </div>
                <h3 className="mt-3 font-semibold text-slate-900 dark:text-white">{step.title}</h3>
                <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">{step.text}</p>
              </li>
            );
          })}
        </ol>
      </section>

      <section aria-labelledby="referral-rewards" className="mt-8 grid gap-4 sm:grid-cols-2">
        <h2 id="referral-rewards" className="sr-only">
          Rewards
        </h2>
        <Card className="flex items-start gap-4 p-5">
          <UserRoundPlus aria-hidden="true" className="size-6 shrink-0 text-brand-700 dark:text-brand-300" />
          <div>
            <h3 className="font-semibold text-slate-900 dark:text-white">Your friend gets {NEW_USER_CREDIT}</h3>
            <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">Transfer credit for the fees of their transfers, when they sign up with your code.</p>
          </div>
        </Card>
        <Card className="flex items-start gap-4 p-5">
          <Users aria-hidden="true" className="size-6 shrink-0 text-brand-700 dark:text-brand-300" />
          <div>
            <h3 className="font-semibold text-slate-900 dark:text-white">You get {REFERRER_REWARD} per friend</h3>
            <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">
              Transfer credit for your fees, for every friend who completes a first transfer.
            </p>
          </div>
        </Card>
      </section>
      <p className="mt-6 text-sm text-slate-600 dark:text-slate-400">
        Credit has no cash value.{" "}
        <Link to="/terms#referrals" className="font-medium text-brand-700 underline underline-offset-2 dark:text-brand-300">
          Referral terms
        </Link>
      </p>
    </>
  );
}
