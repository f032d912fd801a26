import { LogOut } from "lucide-react";
import { Link, useLocation } from "react-router";
import { cn } from "@/lib/cn";
import { NAV_ITEMS } from "./nav-items";

const itemClasses =
  "flex items-center gap-3 rounded-lg px-3 py-2.5 text-sm font-medium transition-colors";

/**
 * The signed-in menu: the spec's items in order, then Log Out. The active item is the one
 * whose path equals the current path exactly.
 */
export function NavList({ label, onNavigate }: { label: string; onNavigate?: () => void }) {
  const { pathname } = useLocation();
  return (
    <nav aria-label={label} className="flex flex-1 flex-col">
      <ul className="space-y-1">
        {NAV_ITEMS.map(({ to, label: text, icon: Icon }) => {
          const active = pathname === to;
          return (
            <li key={to}>
              <Link
                to={to}
                onClick={onNavigate}
                aria-current={active ? "page" : undefined}
                className={cn(
                  itemClasses,
                  active
                    ? "bg-brand-50 text-brand-800 dark:bg-brand-950 dark:text-brand-200"
                    : "text-slate-700 hover:bg-slate-100 hover:text-slate-900 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white",
                )}
              >
                <Icon aria-hidden="true" className="size-5 shrink-0" />
                {text}
              </Link>
            </li>
          );
        })}
      </ul>
      <div className="mt-auto border-t border-slate-200 pt-3 dark:border-slate-800">
        <Link
          to="/logout"
          onClick={onNavigate}
          className={cn(itemClasses, "text-slate-700 hover:bg-red-50 hover:text-red-700 dark:text-slate-300 dark:hover:bg-red-950/50 dark:hover:text-red-300")}
        >
          <LogOut aria-hidden="true" className="size-5 shrink-0" />
          Log Out
        </Link>
      </div>
    </nav>
  );
}
