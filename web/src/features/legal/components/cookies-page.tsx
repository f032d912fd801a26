import { Link } from "react-router";
import { InfoTable, PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { DOCUMENTS_LAST_UPDATED } from "@/lib/site";

/** The spec's cookie durations: auth 30 days, _ga 2 years, _gid 24 hours, language 1 year. */
const COOKIES: ReadonlyArray<readonly [string, string, string, string]> = [
  [
    "thumela_session (auth)",
    "Keeps you signed in. HttpOnly, Secure, SameSite=Lax and first-party: only Thumela's servers can read it, never scripts on the page or other sites.",
    "30 days after your last visit (at most 90 days)",
    "Strictly necessary: set",
  ],
  [
    "thumela_signed_in",
    "Tells this page that you signed in on this browser, so it asks for your session only then. It holds no secret and opens nothing: only the thumela_session cookie above does.",
    "As long as the thumela_session cookie",
    "Strictly necessary: set",
  ],
  [
    "language",
    "Remembers your language choice.",
    "1 year",
    "Not set today: Thumela is in English only",
  ],
  [
    "_ga",
    "Google Analytics: tells visitors apart.",
    "2 years",
    "Not set: our analytics are first-party",
  ],
  [
    "_gid",
    "Google Analytics: tells visitors apart for a day.",
    "24 hours",
    "Not set: our analytics are first-party",
  ],
];

const STORAGE: ReadonlyArray<readonly [string, string, string]> = [
  ["theme", "Your light, dark or system theme choice.", "Until you clear it"],
  ["thumela_anonymous_id", "A random id that groups this browser's usage events for our own analytics. A new one starts when you log out.", "Until you clear it"],
  ["thumela_beta_waitlist:<your user id>", "The beta waitlists you joined on this device.", "Until you clear it"],
];

export default function CookiesPage() {
  return (
    <PublicPage
      title="Cookie Policy"
      updated={DOCUMENTS_LAST_UPDATED}
      lead="Thumela uses one cookie of its own to keep you signed in, and no advertising or third-party tracking cookies."
    >
      <PageSection id="cookies" title="Cookies">
        <p>
          A cookie is a small file a website stores in your browser. This table lists every cookie name Thumela uses or has
          reserved, how long it lasts, and whether it is set today.
        </p>
        <InfoTable caption="Cookies" columns={["Cookie", "Purpose", "Duration", "Status"]} rows={COOKIES} />
        <p>
          If we ever turn on a third-party analytics service that sets cookies like _ga and _gid, we will ask for your
          consent first and update this page.
        </p>
      </PageSection>
      <PageSection id="local-storage" title="Local storage">
        <p>These items are kept in your browser's local storage. They never leave your device except the anonymous id, which is sent with usage events to Thumela's own servers.</p>
        <InfoTable caption="Local storage" columns={["Name", "Purpose", "Duration"]} rows={STORAGE} />
      </PageSection>
      <PageSection id="control" title="Your choices">
        <p>
          You can delete cookies and local storage in your browser's settings at any time. If you block the session cookie
          you won't be able to sign in. To object to our analytics, see your rights in the{" "}
          <Link to="/privacy#rights" className={proseLink}>
            privacy policy
          </Link>
          .
        </p>
      </PageSection>
    </PublicPage>
  );
}
