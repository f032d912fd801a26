import { useEffect } from "react";
import { Link, Outlet, ScrollRestoration, isRouteErrorResponse, useMatches, useNavigation, useRouteError } from "react-router";
import { Button, buttonClasses } from "@/components/ui/button";
import { LoadingBlock } from "@/components/ui/spinner";
import { useAnalyticsPageViews } from "@/lib/analytics-react";
import { usePageTitleOverride } from "@/lib/page-title";

/**
 * Route `handle` data: the page title shown in the browser tab, and, for a page of the app's
 * frame that a visitor may read too (/help), `openToVisitors` (routes/app/layout.tsx).
 */
export interface RouteHandle {
  title?: string;
  openToVisitors?: boolean;
}

export function RootLayout() {
  useDocumentTitle();
  useAnalyticsPageViews();
  return (
    <>
      <NavigationProgress />
      <Outlet />
      <ScrollRestoration />
    </>
  );
}

/** The tab's title: the page's own (usePageTitle), else its route's. */
function useDocumentTitle() {
  const matches = useMatches();
  const override = usePageTitleOverride();
  const title = override ?? [...matches].reverse().map((match) => (match.handle as RouteHandle | undefined)?.title).find(Boolean);
  useEffect(() => {
    document.title = title ? `${title} | Thumela` : "Thumela: send cash to any ATM in South Africa";
  }, [title]);
}

/** A thin bar at the top while the next page's code or data loads. */
function NavigationProgress() {
  const navigation = useNavigation();
  if (navigation.state === "idle") return null;
  return (
    <div role="progressbar" aria-label="Loading page" className="fixed inset-x-0 top-0 z-50 h-1 overflow-hidden bg-brand-100 dark:bg-brand-950">
      <div className="h-full w-1/3 animate-pulse bg-brand-600" />
    </div>
  );
}

/** Shown on the very first load while a lazily loaded page's code arrives. */
export function PageLoading() {
  return <LoadingBlock label="Loading..." className="min-h-dvh" />;
}

/** Anything a route throws (e.g. a page's code could not be downloaded after a release). */
export function RouteError() {
  const error = useRouteError();
  console.error("Route error", error);
  const detail = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : undefined;
  return (
    <main role="alert" className="flex min-h-dvh flex-col items-center justify-center gap-4 px-4 text-center">
      <h1 className="text-2xl font-bold">Something went wrong</h1>
      <p className="max-w-md text-slate-600 dark:text-slate-400">
        This page could not be shown. Reloading usually helps.{detail ? ` (${detail})` : ""}
      </p>
      <div className="flex gap-3">
        <Button onClick={() => window.location.reload()}>Reload page</Button>
        <Link to="/" className={buttonClasses("outline")}>
          Go to the home page
        </Link>
      </div>
    </main>
  );
}
