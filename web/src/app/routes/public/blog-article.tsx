import { useParams } from "react-router";
import { BlogArticlePage } from "@/features/blog/components/blog-article-page";
import { findArticle } from "@/features/blog/content/articles";
import { usePageTitle } from "@/lib/page-title";
import NotFoundPage from "../not-found";

/** /blog/:id: the article, or the 404 page for an id that does not exist, each with its title. */
export default function BlogArticleRoute() {
  const { id = "" } = useParams();
  const article = findArticle(id);
  usePageTitle(article ? article.title : "Page not found");
  return article ? <BlogArticlePage article={article} /> : <NotFoundPage />;
}
