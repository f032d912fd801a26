import { Link } from "react-router";
import { PublicPage } from "@/components/layout/public-shell-page";
import { ARTICLES, formatArticleDate } from "../content/articles";
import { ArticleIllustration } from "./article-illustration";

export default function BlogPage() {
  return (
    <PublicPage wide title="Blog" lead="Guides, safety tips and news about sending cash in South Africa.">
      <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
        {ARTICLES.map((article) => (
          <li key={article.id}>
            <article className="group relative flex h-full flex-col overflow-hidden rounded-xl border border-slate-200 bg-white shadow-sm transition-shadow hover:shadow-md dark:border-slate-800 dark:bg-slate-900">
              <ArticleIllustration art={article.art} label={article.artLabel} className="rounded-none" />
              <div className="flex flex-1 flex-col p-5">
                <p className="text-sm text-slate-600 dark:text-slate-400">
                  <time dateTime={article.date}>{formatArticleDate(article.date)}</time> · {article.author}
                </p>
                <h2 className="mt-2 text-lg font-semibold text-slate-900 dark:text-white">
                  <Link to={`/blog/${article.id}`} className="after:absolute after:inset-0 group-hover:underline">
                    {article.title}
                  </Link>
                </h2>
                <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">{article.excerpt}</p>
              </div>
            </article>
          </li>
        ))}
      </ul>
    </PublicPage>
  );
}
