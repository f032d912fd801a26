import { Copy, Gift, Share2, UserRoundPlus, Users } from "lucide-react";
import { Link } from "react-router";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { NEW_USER_CREDIT, REFERRAL_STEPS, REFERRER_REWARD } from "../content/rewards";
import { referralCode, referralLink } from "../lib/referral-code";

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

/**
 * /refer-friend: the user's own code, derived from their id (lib/referral-code.ts), a copy
 * button, the three steps, the rewards, and Share: the system share sheet where the browser has
 * one, otherwise (or when it fails) the link is copied ('Copied referral link!'). Closing the
 * share sheet on purpose is not a failure and copies nothing.
 */
export function ReferFriend({ userId }: { userId: string }) {
  const code = referralCode(userId);
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
    <div className="mx-auto w-full max-w-4xl">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl dark:text-white">Refer a Friend</h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">
        Invite friends to Thumela: they get {NEW_USER_CREDIT} transfer credit, and you get {REFERRER_REWARD} for each friend
        who completes a first transfer.
      </p>

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
          <div className="flex gap-2">
            <Button variant="outline" onClick={() => void copyCode()} aria-label="Copy referral code">
              <Copy aria-hidden="true" className="size-4" />
              Copy
            </Button>
            <Button onClick={() => void share()}>
              <Share2 aria-hidden="true" className="size-4" />
              Share
            </Button>
          </div>
        </div>
        <p className="mt-3 break-all text-sm text-slate-600 dark:text-slate-400">
          Your link: <span className="font-medium text-slate-800 dark:text-slate-200">{link}</span>
        </p>
      </Card>

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
            <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">Transfer credit when they sign up with your code.</p>
          </div>
        </Card>
        <Card className="flex items-start gap-4 p-5">
          <Users aria-hidden="true" className="size-6 shrink-0 text-brand-700 dark:text-brand-300" />
          <div>
            <h3 className="font-semibold text-slate-900 dark:text-white">You get {REFERRER_REWARD} per friend</h3>
            <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">
              Transfer credit for every friend who completes a first transfer.
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
    </div>
  );
}
