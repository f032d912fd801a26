import { Suspense, lazy } from "react";
import type { LazyExoticComponent, ComponentType } from "react";
import { useLocation } from "react-router";
import { LoadingBlock } from "@/components/ui/spinner";
import NotFoundPage from "../not-found";
import { STATIC_PAGES } from "./static-pages";

const PAGES = new Map<string, LazyExoticComponent<ComponentType>>(
  STATIC_PAGES.map((page) => [page.path, lazy(page.load)]),
);
const BlogArticle = lazy(() => import("./blog-article"));

/**
 * Every public static page (and /blog/:id) is routed here; this picks the page's own lazily
 * loaded component by path, so each page's text is downloaded only when it is visited. Paths
 * match case-insensitively and with or without a trailing slash, as the router's do.
 */
export default function StaticPage() {
  const { pathname } = useLocation();
  const path = pathname.replace(/\/+$/, "").toLowerCase() || "/";
  const Page = path.startsWith("/blog/") ? BlogArticle : PAGES.get(path);
  return (
    <Suspense fallback={<LoadingBlock label="Loading..." className="min-h-[60vh]" />}>
      {Page ? <Page /> : <NotFoundPage />}
    </Suspense>
  );
}
