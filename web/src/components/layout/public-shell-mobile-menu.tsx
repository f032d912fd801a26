import { Menu, X } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { Link, useLocation } from "react-router";
import { buttonClasses } from "@/components/ui/button";
import { HEADER_LINKS } from "./footer-links";

/**
 * Below 768 px: a menu button that shows the public links in a panel under the header (the
 * disclosure pattern: a button with aria-expanded; no focus trap, nothing hidden from assistive
 * technology). Escape, choosing a link or a route change closes it. Plain React, so the landing
 * page's first load carries no dialog library.
 */
export function PublicMobileMenu() {
  const panelId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const { pathname } = useLocation();
  // The path the menu was opened on: a route change closes it (and forgets it, so coming back
  // to that path does not open it again).
  const [openOn, setOpenOn] = useState<string>();
  if (openOn !== undefined && openOn !== pathname) setOpenOn(undefined);
  const open = openOn === pathname;
  const setOpen = (value: boolean) => setOpenOn(value ? pathname : undefined);

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        setOpenOn(undefined);
        buttonRef.current?.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);

  const close = () => setOpen(false);
  return (
    <div className="md:hidden">
      <button
        ref={buttonRef}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        aria-label={open ? "Close menu" : "Open menu"}
        onClick={() => setOpen(!open)}
        className="inline-flex size-10 items-center justify-center rounded-lg text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800"
      >
        {open ? <X aria-hidden="true" className="size-6" /> : <Menu aria-hidden="true" className="size-6" />}
      </button>
      <nav
        id={panelId}
        aria-label="Mobile menu"
        hidden={!open}
        className="absolute inset-x-0 top-16 border-b border-slate-200 bg-white px-4 pb-5 pt-2 shadow-lg dark:border-slate-800 dark:bg-slate-950"
      >
        <ul className="space-y-1">
          {HEADER_LINKS.map((link) => (
            <li key={link.to}>
              <Link
                to={link.to}
                onClick={close}
                className="block rounded-lg px-3 py-3 text-base font-medium text-slate-800 hover:bg-slate-100 dark:text-slate-100 dark:hover:bg-slate-800"
              >
                {link.label}
              </Link>
            </li>
          ))}
        </ul>
        <div className="mt-3 grid grid-cols-2 gap-3 border-t border-slate-200 pt-4 dark:border-slate-800">
          <Link to="/login" onClick={close} className={buttonClasses("outline", "md")}>
            Log In
          </Link>
          <Link to="/signup" onClick={close} className={buttonClasses("primary", "md")}>
            Get Started
          </Link>
        </div>
      </nav>
    </div>
  );
}
