import { Link, Outlet } from "react-router";
import { buttonClasses } from "@/components/ui/button";
import { Logo } from "@/components/ui/logo";
import { ThemeToggle } from "@/components/ui/theme-toggle";

/** Header (logo, Log In, Get Started) and footer around the public pages. */
export function PublicShell() {
  return (
    <div className="flex min-h-dvh flex-col">
      <PublicHeader />
      <main id="main" className="flex-1">
        <Outlet />
      </main>
      <PublicFooter />
    </div>
  );
}

export function PublicHeader() {
  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/90 backdrop-blur dark:border-slate-800 dark:bg-slate-950/90">
      <div className="mx-auto flex h-16 max-w-6xl items-center gap-2 px-4 sm:px-6">
        <Logo />
        <nav aria-label="Account" className="ml-auto flex items-center gap-1 sm:gap-2">
          <ThemeToggle />
          <Link to="/login" className={buttonClasses("ghost", "sm")}>
            Log In
          </Link>
          <Link to="/signup" className={buttonClasses("primary", "sm")}>
            Get Started
          </Link>
        </nav>
      </div>
    </header>
  );
}

const FOOTER_COLUMNS = [
  {
    title: "Company",
    links: [
      { to: "/about", label: "About" },
      { to: "/careers", label: "Careers" },
      { to: "/press", label: "Press" },
      { to: "/blog", label: "Blog" },
    ],
  },
  {
    title: "Legal",
    links: [
      { to: "/privacy", label: "Privacy" },
      { to: "/terms", label: "Terms" },
      { to: "/compliance", label: "Compliance" },
      { to: "/security", label: "Security" },
      { to: "/cookies", label: "Cookies" },
    ],
  },
  {
    title: "Help",
    links: [
      { to: "/help", label: "Help Center" },
      { to: "/contact", label: "Contact" },
      { to: "/faq", label: "FAQ" },
      { to: "/support", label: "Support" },
      { to: "/feedback", label: "Feedback" },
    ],
  },
];

const ACCEPTED = ["Visa", "Mastercard", "Standard Bank", "ABSA", "FNB", "Nedbank", "Capitec"];

const footerLink = "rounded-sm text-sm text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white";

function PublicFooter() {
  return (
    <footer className="border-t border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-950">
      <div className="mx-auto grid max-w-6xl gap-8 px-4 py-10 sm:grid-cols-2 sm:px-6 lg:grid-cols-4">
        <div>
          <Logo />
          <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">
            Send cash to anyone in South Africa, collected at an ATM.
          </p>
        </div>
        {FOOTER_COLUMNS.map((column) => (
          <nav key={column.title} aria-label={column.title}>
            <h2 className="text-sm font-semibold text-slate-900 dark:text-white">{column.title}</h2>
            <ul className="mt-3 space-y-2">
              {column.links.map((link) => (
                <li key={link.to}>
                  <Link to={link.to} className={footerLink}>
                    {link.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        ))}
      </div>
      <div className="border-t border-slate-200 dark:border-slate-800">
        <div className="mx-auto flex max-w-6xl flex-col gap-4 px-4 py-6 text-sm sm:px-6 md:flex-row md:items-center md:justify-between">
          <p className="text-slate-600 dark:text-slate-400">
            <span className="sr-only">Accepted cards and banks: </span>
            {ACCEPTED.join(" · ")}
          </p>
          <ul className="flex flex-wrap gap-x-4 gap-y-2">
            <li>
              <Link to="/accessibility" className={footerLink}>
                Accessibility
              </Link>
            </li>
            <li>
              <Link to="/sitemap" className={footerLink}>
                Sitemap
              </Link>
            </li>
            <li>
              <Link to="/responsible-disclosure" className={footerLink}>
                Responsible Disclosure
              </Link>
            </li>
          </ul>
        </div>
      </div>
    </footer>
  );
}
