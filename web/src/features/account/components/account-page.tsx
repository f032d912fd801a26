import { Code } from "@connectrpc/connect";
import { Tabs } from "radix-ui";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { hasCode } from "@/lib/errors";
import { useProfile } from "../api/profile";
import { ProfileSection } from "./profile-section";
import { PasskeysSection } from "./passkeys-section";
import { SecuritySection } from "./security-section";
import { SessionsSection } from "./sessions-section";

const tabClasses =
  "rounded-md px-4 py-2 text-sm font-medium text-slate-600 transition-colors hover:text-slate-900 " +
  "data-[state=active]:bg-white data-[state=active]:text-slate-900 data-[state=active]:shadow-sm " +
  "dark:text-slate-400 dark:hover:text-white dark:data-[state=active]:bg-slate-900 dark:data-[state=active]:text-white";

/** /account: who is signed in, then the Profile (default) and Security tabs. */
export function AccountPage({ email }: { email: string }) {
  const profile = useProfile();
  const missing = profile.isError && hasCode(profile.error, Code.NotFound);

  if (profile.isPending) return <AccountSkeleton />;
  if (profile.isError && !missing) {
    return (
      <div className="mx-auto w-full max-w-3xl">
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Account</h1>
        <Card role="alert" className="mt-6 space-y-3 p-6">
          <p className="font-medium">We couldn't load your profile.</p>
          <p className="text-sm text-slate-600 dark:text-slate-400">Check your connection and try again.</p>
          <Button variant="outline" busy={profile.isFetching} onClick={() => void profile.refetch()}>
            Try again
          </Button>
        </Card>
      </div>
    );
  }

  return (
    <div className="mx-auto w-full max-w-3xl">
      <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Account</h1>
      <p className="mt-1 text-slate-600 wrap-anywhere dark:text-slate-400">Logged in as {email}</p>
      <Tabs.Root defaultValue="profile" className="mt-6">
        <Tabs.List aria-label="Account settings" className="inline-flex gap-1 rounded-lg bg-slate-100 p-1 dark:bg-slate-800">
          <Tabs.Trigger value="profile" className={tabClasses}>
            Profile
          </Tabs.Trigger>
          <Tabs.Trigger value="security" className={tabClasses}>
            Security
          </Tabs.Trigger>
        </Tabs.List>
        <Tabs.Content value="profile" className="mt-4 focus-visible:outline-2">
          <ProfileSection profile={profile.data?.profile} email={email} />
        </Tabs.Content>
        <Tabs.Content value="security" className="mt-4 space-y-4 focus-visible:outline-2">
          <SecuritySection />
          <PasskeysSection />
          <SessionsSection />
        </Tabs.Content>
      </Tabs.Root>
    </div>
  );
}

/**
 * While the profile loads. The grey blocks are decorative (aria-hidden), so the status also
 * carries the words: without them it held nothing a screen reader could read.
 */
function AccountSkeleton() {
  return (
    <div className="mx-auto w-full max-w-3xl" role="status" aria-label="Loading your account...">
      <span className="sr-only">Loading your account...</span>
      <Skeleton className="h-8 w-40" />
      <Skeleton className="mt-3 h-5 w-64" />
      <Skeleton className="mt-6 h-10 w-52" />
      <Card className="mt-4 space-y-5 p-6">
        {[0, 1, 2, 3].map((row) => (
          <div key={row} className="space-y-2">
            <Skeleton className="h-4 w-24" />
            <Skeleton className="h-5 w-56" />
          </div>
        ))}
      </Card>
    </div>
  );
}
