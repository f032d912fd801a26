import { ArrowLeft } from "lucide-react";
import { Link } from "react-router";
import { proseLink } from "@/components/layout/public-shell-page";
import { LimitText } from "@/components/limit-text";
import type { Article } from "../content/articles";
import { ARTICLES, formatArticleDate } from "../content/articles";
import { ArticleIllustration } from "./article-illustration";

/** One blog article at /blog/{id}. */
export function BlogArticlePage({ article }: { article: Article }) {
  const others = ARTICLES.filter((candidate) => candidate.id !== article.id).slice(0, 2);
  return (
    <article className="mx-auto max-w-3xl px-4 py-12 sm:px-6 md:py-16">
      <Link to="/blog" className={`inline-flex items-center gap-1.5 text-sm ${proseLink}`}>
        <ArrowLeft aria-hidden="true" className="size-4" />
        All articles
      </Link>
      <header className="mt-6">
        <h1 className="text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl dark:text-white">{article.title}</h1>
        <p className="mt-3 text-slate-600 dark:text-slate-400">
          By {article.author}, {article.authorRole} · <time dateTime={article.date}>{formatArticleDate(article.date)}</time>
        </p>
      </header>
      <ArticleIllustration art={article.art} label={article.artLabel} className="mt-8" />
      <p className="mt-8 text-lg text-slate-700 dark:text-slate-200">{article.excerpt}</p>
      <div className="mt-6 space-y-8">
        {article.body.map((section, index) => (
          <section key={index} className="space-y-4 text-slate-700 dark:text-slate-300">
            {section.heading && <h2 className="text-xl font-semibold text-slate-900 dark:text-white">{section.heading}</h2>}
            {section.paragraphs.map((paragraph) => (
              <p key={paragraph}>
                <LimitText text={paragraph} />
              </p>
            ))}
          </section>
        ))}
      </div>
      <aside aria-labelledby="more-articles" className="mt-12 border-t border-slate-200 pt-8 dark:border-slate-800">
        <h2 id="more-articles" className="text-lg font-semibold">
          More from the blog
        </h2>
        <ul className="mt-3 space-y-2">
          {others.map((other) => (
            <li key={other.id}>
              <Link to={`/blog/${other.id}`} className={proseLink}>
                {other.title}
              </Link>
            </li>
          ))}
        </ul>
      </aside>
    </article>
  );
}
