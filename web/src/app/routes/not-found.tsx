import { useEffect } from "react";
import { Link, useLocation } from "react-router";
import { buttonClasses } from "@/components/ui/button";

export default function NotFoundPage() {
  const { pathname } = useLocation();
  useEffect(() => {
    console.warn(`404: no page at ${pathname}`);
  }, [pathname]);
  return (
    <div className="mx-auto flex max-w-xl flex-col items-center px-4 py-24 text-center">
      <p className="text-sm font-semibold text-brand-700 dark:text-brand-300">404</p>
      <h1 className="mt-2 text-3xl font-bold tracking-tight">Oops! Page not found</h1>
      <p className="mt-3 text-slate-600 dark:text-slate-400">The page you are looking for doesn't exist or has moved.</p>
      <Link to="/" className={buttonClasses("primary", "md", "mt-8")}>
        Return to Home
      </Link>
    </div>
  );
}
