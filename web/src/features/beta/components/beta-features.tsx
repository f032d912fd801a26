import { Check, FlaskConical } from "lucide-react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { BETA_FEATURES } from "../content/features";
import { useWaitlist } from "../lib/waitlist";

/** /beta-features: an intro card and one card per beta feature with Join Waitlist. */
export function BetaFeatures({ userId }: { userId: string }) {
  const { joined, join } = useWaitlist(userId);

  return (
    <div className="mx-auto w-full max-w-4xl">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl dark:text-white">BETA Features</h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">A look at what we're building next.</p>

      <Card className="mt-6 flex items-start gap-4 border-brand-200 bg-brand-50 p-6 dark:border-brand-900 dark:bg-brand-950/60">
        <FlaskConical aria-hidden="true" className="mt-0.5 size-6 shrink-0 text-brand-700 dark:text-brand-300" />
        <div>
          <h2 className="font-semibold text-slate-900 dark:text-white">Help shape Thumela</h2>
          <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">
            These features are not available yet. Join a waitlist to keep track of the ones you want. Your choice is saved
            in this browser only and is not sent to us, and joining costs nothing.
          </p>
        </div>
      </Card>

      <ul className="mt-6 grid gap-6 lg:grid-cols-2">
        {BETA_FEATURES.map((feature) => {
          const isJoined = joined.includes(feature.id);
          return (
            <li key={feature.id} id={feature.id}>
              <Card className="flex h-full flex-col p-6" aria-labelledby={`${feature.id}-title`}>
                <div className="flex items-start justify-between gap-3">
                  <h2 id={`${feature.id}-title`} className="text-lg font-semibold text-slate-900 dark:text-white">
                    {feature.title}
                  </h2>
                  <Badge tone={feature.status === "Coming Soon" ? "brand" : "amber"} className="shrink-0">
                    {feature.status}
                  </Badge>
                </div>
                <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">{feature.description}</p>
                <h3 className="mt-4 text-sm font-semibold text-slate-900 dark:text-white">Benefits</h3>
                <ul className="mt-2 flex-1 space-y-1.5 text-sm text-slate-700 dark:text-slate-300">
                  {feature.benefits.map((benefit) => (
                    <li key={benefit} className="flex items-start gap-2">
                      <Check aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-brand-700 dark:text-brand-300" />
                      {benefit}
                    </li>
                  ))}
                </ul>
                <Button
                  className="mt-6 w-full"
                  variant={isJoined ? "secondary" : "primary"}
                  disabled={isJoined}
                  aria-label={isJoined ? `Joined Waitlist for ${feature.title}` : `Join Waitlist for ${feature.title}`}
                  onClick={() => {
                    join(feature.id);
                    toast.success("Waitlist joined", { description: feature.title });
                  }}
                >
                  {isJoined ? (
                    <>
                      <Check aria-hidden="true" className="size-4" />
                      Joined Waitlist
                    </>
                  ) : (
                    "Join Waitlist"
                  )}
                </Button>
              </Card>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
