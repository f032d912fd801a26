import { displayName, initials } from "@/lib/user-display";
import type { BadgeUser } from "@/lib/user-display";

/** The signed-in person's initials and name, top right of the app. */
export function UserBadge({ user }: { user: BadgeUser }) {
  const name = displayName(user);
  return (
    <div className="flex items-center gap-3" aria-label={`Signed in as ${name}`} role="group">
      <span className="hidden max-w-48 truncate text-sm font-medium text-slate-700 sm:block dark:text-slate-200">{name}</span>
      <span
        aria-hidden="true"
        className="flex size-9 items-center justify-center rounded-full bg-brand-700 text-sm font-semibold text-white dark:bg-brand-600"
      >
        {initials(user)}
      </span>
    </div>
  );
}
