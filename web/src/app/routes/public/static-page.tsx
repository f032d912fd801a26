import { useLocation } from "react-router";
import { ComingSoon } from "@/components/ui/coming-soon";
import { STATIC_PAGES } from "./static-pages";

/** A public static page that is not written yet: its heading and an honest notice. */
export default function StaticPage() {
  const { pathname } = useLocation();
  const page = STATIC_PAGES.find((candidate) => pathname === candidate.path || pathname.startsWith(`${candidate.path}/`));
  return (
    <div className="px-4 py-12 sm:px-6">
      <ComingSoon title={page?.title ?? "Thumela"} />
    </div>
  );
}
