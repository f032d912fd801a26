import { cn } from "@/lib/cn";
import { displayName, initials, shortName } from "@/lib/user-display";
import type { BadgeUser } from "@/lib/user-display";

const NAME_CLASSES = "min-w-0 truncate text-sm font-medium text-slate-700 dark:text-slate-200";

/**
 * The signed-in person's initials and name, top right of the app. Below 640 px the top bar
 * (menu button, logo, theme toggle, this badge) has room for the first name only: up to 5rem, or
 * what room is left (the badge is the one part of the bar that gives way), cut short with an
 * ellipsis; below 360 px, where that is a letter or two, the initials alone. From 640 px the
 * full name shows. The full name is always the badge's accessible name, and the name's tooltip.
 */
export function UserBadge({ user }: { user: BadgeUser }) {
  const name = displayName(user);
  return (
    <div className="flex min-w-0 items-center gap-2 sm:gap-3" aria-label={`Signed in as ${name}`} role="group">
      <span title={name} className={cn(NAME_CLASSES, "max-w-20 max-[359px]:hidden sm:hidden")}>
        {shortName(user)}
      </span>
      <span title={name} className={cn(NAME_CLASSES, "hidden max-w-48 sm:block")}>
        {name}
      </span>
      <span
        aria-hidden="true"
        className="flex size-9 shrink-0 items-center justify-center rounded-full bg-brand-700 text-sm font-semibold text-white dark:bg-brand-600"
      >
        {initials(user)}
      </span>
    </div>
  );
}
