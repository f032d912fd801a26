import { Link } from "react-router";
import { PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { PUBLIC_FAQ } from "../content/faq";
import { FaqAccordion } from "./faq-accordion";

export default function FaqPage() {
  return (
    <PublicPage title="FAQ" lead="Quick answers about sending cash with Thumela.">
      <FaqAccordion groups={PUBLIC_FAQ} />
      <p className="mt-10 text-slate-700 dark:text-slate-300">
        Still stuck?{" "}
        <Link to="/support" className={proseLink}>
          Get support
        </Link>{" "}
        or{" "}
        <Link to="/contact" className={proseLink}>
          contact us
        </Link>
        .
      </p>
    </PublicPage>
  );
}
