import { Outlet } from "react-router";
import { Logo } from "@/components/ui/logo";
import { ThemeToggle } from "@/components/ui/theme-toggle";

/** A quiet frame for sign-up, login and verification: logo, theme, the card in the middle. */
export function AuthLayout() {
  return (
    <div className="flex min-h-dvh flex-col bg-linear-to-b from-brand-50 to-slate-50 dark:from-slate-900 dark:to-slate-950">
      <header className="mx-auto flex h-16 w-full max-w-6xl items-center justify-between px-4 sm:px-6">
        <Logo />
        <ThemeToggle />
      </header>
      <main id="main" className="flex flex-1 items-start justify-center px-4 pb-16 pt-6 sm:items-center sm:pt-0">
        <Outlet />
      </main>
    </div>
  );
}
