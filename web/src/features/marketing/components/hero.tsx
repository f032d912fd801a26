import { ArrowRight, ShieldCheck } from "lucide-react";
import { Link } from "react-router";
import { buttonClasses } from "@/components/ui/button";
import { useSignedInHint } from "@/lib/session-hint";

/** The landing page's hero; its buttons follow the header's (signed in: Send Money, Dashboard). */
export function Hero() {
  const signedIn = useSignedInHint();
  return (
    <section aria-labelledby="hero-title" className="bg-linear-to-b from-brand-50 to-white dark:from-slate-900 dark:to-slate-950">
      <div className="mx-auto grid max-w-6xl items-center gap-10 px-4 py-16 sm:px-6 md:grid-cols-2 md:py-24">
        <div>
          <p className="inline-flex items-center gap-2 rounded-full bg-white px-3 py-1 text-xs font-medium text-brand-800 shadow-sm ring-1 ring-brand-100 dark:bg-slate-900 dark:text-brand-200 dark:ring-brand-900">
            <ShieldCheck aria-hidden="true" className="size-4" />
            Quick, secure cash transfers in rand
          </p>
          <h1 id="hero-title" className="mt-5 text-4xl font-bold tracking-tight text-slate-900 sm:text-5xl dark:text-white">
            Send cash to any ATM in South Africa
          </h1>
          <p className="mt-5 max-w-xl text-lg text-slate-600 dark:text-slate-300">
            Pay with your card and your recipient withdraws the cash at an ATM. They don't need a bank account, and
            signing up takes under 2 minutes.
          </p>
          <div className="mt-8 flex flex-wrap gap-3">
            <Link to={signedIn ? "/send-money" : "/signup"} className={buttonClasses("primary", "lg")}>
              {signedIn ? "Send Money" : "Get Started"}
              <ArrowRight aria-hidden="true" className="size-4" />
            </Link>
            <Link to={signedIn ? "/dashboard" : "/login"} className={buttonClasses("outline", "lg")}>
              {signedIn ? "Dashboard" : "Log In"}
            </Link>
          </div>
        </div>
        <HeroIllustration />
      </div>
    </section>
  );
}

function HeroIllustration() {
  return (
    <div aria-hidden="true" className="relative mx-auto w-full max-w-sm">
      <div className="rounded-2xl border border-slate-200 bg-white p-6 shadow-xl dark:border-slate-800 dark:bg-slate-900">
        <p className="text-sm text-slate-500 dark:text-slate-400">Cash voucher</p>
        <p className="mt-1 text-3xl font-bold tracking-tight">R500,00</p>
        <div className="mt-6 space-y-3">
          <div className="h-3 w-3/4 rounded-full bg-slate-100 dark:bg-slate-800" />
          <div className="h-3 w-1/2 rounded-full bg-slate-100 dark:bg-slate-800" />
        </div>
        <div className="mt-6 h-11 rounded-lg bg-brand-700 dark:bg-brand-600" />
      </div>
    </div>
  );
}
