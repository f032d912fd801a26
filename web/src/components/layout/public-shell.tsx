import { Link, Outlet } from "react-router";
import type { ReactNode } from "react";
import { buttonClasses } from "@/components/ui/button";
import { Logo } from "@/components/ui/logo";
import { ThemeToggle } from "@/components/ui/theme-toggle";
import { useSignedInHint } from "@/lib/session-hint";
import { PublicFooter } from "./footer";
import { HEADER_LINKS } from "./footer-links";
import { PublicMobileMenu } from "./public-shell-mobile-menu";

/**
 * Header (logo, Log In, Get Started) and footer around the public pages: the route's page, or
 * `children` where a layout chooses this frame itself (/help for a visitor).
 */
export function PublicShell({ children }: { children?: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:left-4 focus:top-4 focus:z-50 focus:rounded-lg focus:bg-white focus:px-4 focus:py-2 focus:shadow dark:focus:bg-slate-900"
      >
        Skip to content
      </a>
      <PublicHeader />
      <main id="main" tabIndex={-1} className="flex-1 focus:outline-none">
        {children ?? <Outlet />}
      </main>
      <PublicFooter />
    </div>
  );
}

const pageLink =
  "rounded-md px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100 hover:text-slate-900 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white";

/**
 * From 768 px: logo, page links, theme, Log In and Get Started. Below: logo, theme, Get Started
 * and a menu button that opens every link (Log In included) under the bar. A signed-in reader
 * (the BFF's signed-in hint, known before the first paint) gets Dashboard in place of Log In and
 * Get Started, in the bar and in the menu.
 */
export function PublicHeader() {
  const signedIn = useSignedInHint();
  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/90 backdrop-blur dark:border-slate-800 dark:bg-slate-950/90">
      <div className="mx-auto flex h-16 max-w-6xl items-center gap-2 px-4 sm:px-6">
        {/* Below 360 px the word mark would push the menu button off the screen: the mark alone
            shows ("Thumela" stays the link's name). */}
        <Logo className="max-[359px]:[&>span]:sr-only" />
        <nav aria-label="Site" className="ml-6 hidden items-center gap-1 md:flex">
          {HEADER_LINKS.map((link) => (
            <Link key={link.to} to={link.to} className={pageLink}>
              {link.label}
            </Link>
          ))}
        </nav>
        <div className="ml-auto flex items-center gap-1 sm:gap-2">
          <ThemeToggle />
          {signedIn ? (
            <Link to="/dashboard" className={buttonClasses("primary", "sm", "whitespace-nowrap")}>
              Dashboard
            </Link>
          ) : (
            <>
              <Link to="/login" className={buttonClasses("ghost", "sm", "whitespace-nowrap max-md:hidden")}>
                Log In
              </Link>
              <Link to="/signup" className={buttonClasses("primary", "sm", "whitespace-nowrap")}>
                Get Started
              </Link>
            </>
          )}
          <PublicMobileMenu signedIn={signedIn} />
        </div>
      </div>
    </header>
  );
}
