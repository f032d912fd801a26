import { Suspense, lazy } from "react";
import type { ReactElement } from "react";
import { useLocation } from "react-router";
import { LoadingBlock } from "@/components/ui/spinner";
import NotFoundPage from "../not-found";
import { STATIC_PAGES } from "./static-pages";

// Elements made once here, so rendering picks one rather than a component made during render.
const PAGES = new Map<string, ReactElement>(
  STATIC_PAGES.map((page) => {
    const Page = lazy(page.load);
    return [page.path, <Page />];
  }),
);
const BlogArticle = lazy(() => import("./blog-article"));
const BLOG_ARTICLE = <BlogArticle />;

/**
 * Every public static page (and /blog/:id) is routed here; this picks the page's own lazily
 * loaded component by path, so each page's text is downloaded only when it is visited. Paths
 * match case-insensitively and with or without a trailing slash, as the router's do.
 */
export default function StaticPage() {
  const { pathname } = useLocation();
  const path = pathname.replace(/\/+$/, "").toLowerCase() || "/";
  const page = path.startsWith("/blog/") ? BLOG_ARTICLE : PAGES.get(path);
  return (
    <Suspense fallback={<LoadingBlock label="Loading..." className="min-h-[60vh]" />}>
      {page ?? <NotFoundPage />}
    </Suspense>
  );
}
