import { Link } from "react-router";
import type { RouteObject } from "react-router";
import { PublicPage } from "@/components/layout/public-shell-page";
import { ARTICLES } from "@/features/blog/content/articles";
import { routes } from "../../router";
import type { RouteHandle } from "../root";

export interface SitemapEntry {
  path: string;
  title: string;
}

export interface SitemapGroup {
  title: string;
  entries: SitemapEntry[];
}

/**
 * Every page of the router's own route table, so the sitemap cannot drift from it: each
 * top-level branch (public shell, sign-in screens, signed-in app, stand-alone routes) is a
 * group; a page's name is its route's title. /blog/:id is expanded into the articles; the
 * catch-all 404 is left out.
 */
export function buildSitemap(table: readonly RouteObject[] = routes): SitemapGroup[] {
  const root = table[0];
  const branches = root.children ?? [];
  const groups: SitemapGroup[] = [];
  const loose: SitemapEntry[] = [];
  for (const branch of branches) {
    if (branch.path === undefined && branch.children) {
      const entries = articlesAfterBlog(branch.children.flatMap(entriesFor));
      if (entries.length > 0) groups.push({ title: groupTitle(entries), entries });
    } else {
      loose.push(...entriesFor(branch));
    }
  }
  if (loose.length > 0) groups.push({ title: "Other", entries: loose });
  return groups;
}

/** Names that read better in a list than the browser-tab title. */
const LABELS: Record<string, string> = { "/logout": "Log Out" };

/** The articles listed under Blog rather than at the end. */
function articlesAfterBlog(entries: SitemapEntry[]): SitemapEntry[] {
  const articles = entries.filter((entry) => entry.path.startsWith("/blog/"));
  const rest = entries.filter((entry) => !entry.path.startsWith("/blog/"));
  const blog = rest.findIndex((entry) => entry.path === "/blog");
  return blog < 0 ? entries : [...rest.slice(0, blog + 1), ...articles, ...rest.slice(blog + 1)];
}

function entriesFor(route: RouteObject): SitemapEntry[] {
  const title = route.path ? (LABELS[route.path] ?? (route.handle as RouteHandle | undefined)?.title) : undefined;
  if (route.index) return [{ path: "/", title: "Home" }];
  if (!route.path || route.path === "*") return (route.children ?? []).flatMap(entriesFor);
  if (route.path === "/blog/:id") {
    return ARTICLES.map((article) => ({ path: `/blog/${article.id}`, title: article.title }));
  }
  if (route.path.includes(":")) return []; // no other parameterised pages today
  return [{ path: route.path, title: title ?? route.path }];
}

function groupTitle(entries: SitemapEntry[]): string {
  const paths = new Set(entries.map((entry) => entry.path));
  if (paths.has("/dashboard")) return "Your account (sign-in needed)";
  if (paths.has("/help")) return "Help";
  if (paths.has("/login")) return "Sign up and log in";
  if (paths.has("/")) return "Public pages";
  return "More pages";
}

export default function SitemapPage() {
  const groups = buildSitemap();
  return (
    <PublicPage wide title="Sitemap" lead="Every page on Thumela.">
      <div className="grid gap-10 sm:grid-cols-2 lg:grid-cols-4">
        {groups.map((group) => (
          <section key={group.title} aria-labelledby={`sitemap-${slug(group.title)}`}>
            <h2 id={`sitemap-${slug(group.title)}`} className="text-lg font-semibold text-slate-900 dark:text-white">
              {group.title}
            </h2>
            <ul className="mt-3 space-y-2">
              {group.entries.map((entry) => (
                <li key={entry.path} className={entry.path.startsWith("/blog/") ? "pl-4" : undefined}>
                  <Link
                    to={entry.path}
                    className="text-sm text-brand-700 underline-offset-2 hover:underline dark:text-brand-300"
                  >
                    {entry.title}
                  </Link>
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
    </PublicPage>
  );
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-");
}
