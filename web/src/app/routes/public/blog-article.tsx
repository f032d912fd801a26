import { useParams } from "react-router";
import { BlogArticlePage } from "@/features/blog/components/blog-article-page";
import { findArticle } from "@/features/blog/content/articles";
import NotFoundPage from "../not-found";

/** /blog/:id: the article, or the 404 page for an id that does not exist. */
export default function BlogArticleRoute() {
  const { id = "" } = useParams();
  const article = findArticle(id);
  return article ? <BlogArticlePage article={article} /> : <NotFoundPage />;
}
