import { Link } from "react-router";
import { buttonClasses } from "@/components/ui/button";
import { useSignedInHint } from "@/lib/session-hint";

/** 'First Transfer Free!' with Get Started, or Send Money for a signed-in reader. */
export function PromoBanner() {
  const signedIn = useSignedInHint();
  return (
    <section aria-labelledby="promo-title" className="mx-auto max-w-6xl px-4 pb-16 sm:px-6">
      <div className="flex flex-col items-start gap-6 rounded-2xl bg-brand-800 px-6 py-10 text-white sm:px-10 md:flex-row md:items-center md:justify-between dark:bg-brand-900">
        <div>
          <h2 id="promo-title" className="text-2xl font-bold tracking-tight sm:text-3xl">
            First Transfer Free!
          </h2>
          <p className="mt-2 text-brand-100">Your first transfer carries no fees at all.</p>
        </div>
        <Link to={signedIn ? "/send-money" : "/signup"} className={buttonClasses("outline", "lg", "border-transparent")}>
          {signedIn ? "Send Money" : "Get Started"}
        </Link>
      </div>
    </section>
  );
}
