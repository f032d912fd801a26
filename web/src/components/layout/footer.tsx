import { Mail, MapPin, Phone } from "lucide-react";
import { useId, useState } from "react";
import type { FormEvent } from "react";
import { Link } from "react-router";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Logo } from "@/components/ui/logo";
import { CARD_BRANDS, COMPANY, PARTNER_BANKS } from "@/lib/site";
import { FOOTER_BOTTOM_LINKS, FOOTER_COLUMNS } from "./footer-links";

const footerLink = "rounded-sm text-sm text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white";

/** A plain check for the newsletter box (no zod on the landing page's first load). */
export function isEmailAddress(value: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/.test(value.trim());
}

export function PublicFooter() {
  return (
    <footer className="border-t border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-950">
      <div className="mx-auto grid max-w-6xl gap-10 px-4 py-12 sm:px-6 lg:grid-cols-[1.4fr_2fr]">
        <div className="space-y-6">
          <div>
            <Logo />
            <p className="mt-3 max-w-sm text-sm text-slate-600 dark:text-slate-400">
              Send cash to anyone in South Africa. They collect it at an ATM, no bank account needed.
            </p>
          </div>
          <NewsletterForm />
          <ContactBlock />
        </div>
        <div className="grid gap-8 sm:grid-cols-3">
          {FOOTER_COLUMNS.map((column) => (
            <nav key={column.title} aria-label={column.title}>
              <h2 className="text-sm font-semibold text-slate-900 dark:text-white">{column.title}</h2>
              <ul className="mt-3 space-y-2">
                {column.links.map((link) => (
                  <li key={link.to}>
                    <Link to={link.to} className={footerLink}>
                      {link.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
          ))}
        </div>
      </div>
      <div className="border-t border-slate-200 dark:border-slate-800">
        <div className="mx-auto flex max-w-6xl flex-col gap-6 px-4 py-6 sm:px-6 lg:flex-row lg:items-center lg:justify-between">
          <AcceptedMarks />
          <nav aria-label="More">
            <ul className="flex flex-wrap gap-x-5 gap-y-2">
              {FOOTER_BOTTOM_LINKS.map((link) => (
                <li key={link.to}>
                  <Link to={link.to} className={footerLink}>
                    {link.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        </div>
        <p className="mx-auto max-w-6xl px-4 pb-6 text-xs text-slate-500 sm:px-6 dark:text-slate-400">
          © {new Date().getFullYear()} {COMPANY.legalName}. Registration number {COMPANY.registrationNumber}. Thumela is
          not a bank: cash vouchers are paid out by our partner banks' ATMs.
        </p>
      </div>
    </footer>
  );
}

/**
 * The newsletter box. There is no newsletter service yet (the spec: no call), so a valid
 * address gets an honest, polite note and nothing is stored or sent.
 */
export function NewsletterForm() {
  const id = useId();
  const [email, setEmail] = useState("");
  const [state, setState] = useState<{ kind: "idle" } | { kind: "invalid" } | { kind: "thanks"; email: string }>({
    kind: "idle",
  });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!isEmailAddress(email)) {
      setState({ kind: "invalid" });
      return;
    }
    setState({ kind: "thanks", email: email.trim() });
    setEmail("");
  };

  const invalid = state.kind === "invalid";
  return (
    <form noValidate onSubmit={onSubmit} aria-labelledby={`${id}-title`} className="max-w-sm">
      <h2 id={`${id}-title`} className="text-sm font-semibold text-slate-900 dark:text-white">
        Newsletter
      </h2>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">Tips on sending money safely, and product news.</p>
      <div className="mt-3 flex gap-2">
        <label htmlFor={`${id}-email`} className="sr-only">
          Email address
        </label>
        <Input
          id={`${id}-email`}
          type="email"
          autoComplete="email"
          placeholder="you@example.co.za"
          value={email}
          onChange={(event) => {
            setEmail(event.target.value);
            if (state.kind === "invalid") setState({ kind: "idle" });
          }}
          aria-invalid={invalid || undefined}
          aria-describedby={`${id}-status`}
        />
        <Button type="submit" className="shrink-0">
          Subscribe
        </Button>
      </div>
      <p id={`${id}-status`} role="status" className="mt-2 min-h-5 text-sm">
        {invalid && <span className="text-red-700 dark:text-red-300">Please enter a valid email address.</span>}
        {state.kind === "thanks" && (
          <span className="text-brand-800 dark:text-brand-200">
            Thank you! Our newsletter has not launched yet, so we have not stored {state.email}. Our blog has the news
            in the meantime.
          </span>
        )}
      </p>
    </form>
  );
}

function ContactBlock() {
  return (
    <address className="space-y-2 text-sm not-italic text-slate-600 dark:text-slate-400">
      <h2 className="text-sm font-semibold text-slate-900 dark:text-white">Contact us</h2>
      <p className="flex items-center gap-2">
        <Mail aria-hidden="true" className="size-4 shrink-0" />
        <a href={`mailto:${COMPANY.supportEmail}`} className={footerLink}>
          {COMPANY.supportEmail}
        </a>
      </p>
      <p className="flex items-center gap-2">
        <Phone aria-hidden="true" className="size-4 shrink-0" />
        <a href={COMPANY.phoneHref} className={footerLink}>
          {COMPANY.phoneWord} ({COMPANY.phoneDisplay})
        </a>
      </p>
      <p className="flex items-start gap-2">
        <MapPin aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
        <span>{COMPANY.addressLines.join(", ")}</span>
      </p>
    </address>
  );
}

/** Neutral text marks, not the brands' logos. */
function AcceptedMarks() {
  return (
    <div className="space-y-2">
      <h2 className="text-xs font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">
        Pay with · Collect at
      </h2>
      <ul aria-label="Accepted cards and partner banks" className="flex flex-wrap gap-2">
        {[...CARD_BRANDS, ...PARTNER_BANKS].map((name) => (
          <li
            key={name}
            className="rounded-md border border-slate-300 px-2 py-1 text-xs font-semibold tracking-tight text-slate-700 dark:border-slate-700 dark:text-slate-300"
          >
            {name}
          </li>
        ))}
      </ul>
    </div>
  );
}
