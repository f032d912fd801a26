import type { ReactNode } from "react";
import { Logo } from "@/components/ui/logo";
import { ThemeToggle } from "@/components/ui/theme-toggle";
import type { BadgeUser } from "@/lib/user-display";
import { MobileMenu } from "./mobile-menu";
import { NavList } from "./nav-list";
import { UnavailableBanner } from "./unavailable-banner";
import { UserBadge } from "./user-badge";

/** The signed-in frame: sidebar (≥768 px) or slide-out menu, a top bar with the user badge. */
export function AppShell({ user, children }: { user: BadgeUser; children: ReactNode }) {
  return (
    <div className="flex min-h-dvh">
      <SkipLink />
      <aside aria-label="Sidebar" className="sticky top-0 hidden h-dvh w-64 shrink-0 flex-col gap-6 border-r border-slate-200 bg-white px-4 py-5 md:flex dark:border-slate-800 dark:bg-slate-900">
        <Logo to="/dashboard" className="px-2" />
        <NavList label="Main navigation" />
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="sticky top-0 z-30 flex h-16 items-center gap-3 border-b border-slate-200 bg-white/90 px-4 backdrop-blur sm:px-6 dark:border-slate-800 dark:bg-slate-900/90">
          <MobileMenu />
          <Logo to="/dashboard" className="md:hidden" />
          {/* The rest of the bar, from the logo to the end: on a narrow phone the user badge
              gives way (its name is cut short), the buttons keep their size. */}
          <div className="flex min-w-0 flex-1 items-center justify-end gap-2">
            <ThemeToggle />
            <UserBadge user={user} />
          </div>
        </header>
        <UnavailableBanner />
        {/* Room at the end (pb-28) to scroll a page's last buttons clear of the toasts, which
            show at the bottom (ThemedToaster). */}
        <main id="main" tabIndex={-1} className="flex-1 px-4 pb-28 pt-6 focus:outline-none sm:px-6 lg:px-10 lg:pt-8">
          {children}
        </main>
      </div>
    </div>
  );
}

function SkipLink() {
  return (
    <a
      href="#main"
      className="sr-only focus:not-sr-only focus:fixed focus:left-4 focus:top-4 focus:z-50 focus:rounded-lg focus:bg-white focus:px-4 focus:py-2 focus:shadow"
    >
      Skip to content
    </a>
  );
}
