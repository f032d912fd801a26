import { Menu, X } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { Link, useLocation } from "react-router";
import { buttonClasses } from "@/components/ui/button";
import { HEADER_LINKS } from "./footer-links";

/** Where the header shows its own links and the menu button goes (Tailwind's md). */
const WIDE = "(min-width: 768px)";

/**
 * Below 768 px: a menu button that shows the public links in a panel under the header: the
 * disclosure pattern (a button with aria-expanded; nothing hidden from assistive technology),
 * with the keyboard kept as a menu dialog keeps it. While open, Tab and Shift+Tab go round the
 * button and the panel's links; Escape closes it and puts the focus on the button; choosing a
 * link closes it with the focus on the button (as the signed-in menu's dialog does); a press
 * outside it, a route change or a window widened to 768 px closes it. Plain React, so the
 * landing page's first load carries no dialog library. Signed in (the header's hint), the panel
 * ends with Dashboard instead of Log In and Get Started.
 */
export function PublicMobileMenu({ signedIn = false }: { signedIn?: boolean }) {
  const panelId = useId();
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<HTMLElement>(null);
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
      } else if (event.key === "Tab" && !event.altKey && !event.ctrlKey && !event.metaKey) {
        const stops = [buttonRef.current, ...(panelRef.current?.querySelectorAll<HTMLElement>("a[href], button") ?? [])];
        const first = stops[0];
        const last = stops[stops.length - 1];
        if (!first || !last) return;
        const active = document.activeElement;
        const inside = rootRef.current?.contains(active) ?? false;
        // Round from the last link to the button and back; a focus that is not in the menu
        // (the page's body after a press on the panel's padding) comes back into it.
        if (event.shiftKey ? active === first || !inside : active === last || !inside) {
          event.preventDefault();
          (event.shiftKey ? last : first).focus();
        }
      }
    };
    const onPointer = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpenOn(undefined);
    };
    // At 768 px and wider the button and its panel are not shown: close rather than keep the
    // focus going round hidden links.
    const wide = window.matchMedia(WIDE);
    const onWide = () => {
      if (wide.matches) setOpenOn(undefined);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    wide.addEventListener("change", onWide);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
      wide.removeEventListener("change", onWide);
    };
  }, [open]);

  /** A link chosen: the panel goes, so the focus goes to the button rather than the page's body. */
  const choose = () => {
    setOpen(false);
    buttonRef.current?.focus();
  };
  return (
    <div ref={rootRef} className="md:hidden">
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
        ref={panelRef}
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
                onClick={choose}
                className="block rounded-lg px-3 py-3 text-base font-medium text-slate-800 hover:bg-slate-100 dark:text-slate-100 dark:hover:bg-slate-800"
              >
                {link.label}
              </Link>
            </li>
          ))}
        </ul>
        <div className="mt-3 grid grid-cols-2 gap-3 border-t border-slate-200 pt-4 dark:border-slate-800">
          {signedIn ? (
            <Link to="/dashboard" onClick={choose} className={buttonClasses("primary", "md", "col-span-2")}>
              Dashboard
            </Link>
          ) : (
            <>
              <Link to="/login" onClick={choose} className={buttonClasses("outline", "md")}>
                Log In
              </Link>
              <Link to="/signup" onClick={choose} className={buttonClasses("primary", "md")}>
                Get Started
              </Link>
            </>
          )}
        </div>
      </nav>
    </div>
  );
}
