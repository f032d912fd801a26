import { BulletList, PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { COMPANY, DOCUMENTS_LAST_UPDATED } from "@/lib/site";

export default function AccessibilityPage() {
  return (
    <PublicPage
      title="Accessibility"
      updated={DOCUMENTS_LAST_UPDATED}
      lead="Everyone should be able to send money home. We build Thumela to meet the Web Content Accessibility Guidelines (WCAG) 2.1 at level AA."
    >
      <PageSection id="what-we-do" title="What we do">
        <BulletList
          items={[
            "Every page works with a keyboard alone, with a visible focus ring and a “Skip to content” link.",
            "Every button, field and image has a name that screen readers announce; errors are announced as they appear.",
            "Text and controls meet AA colour contrast in both the light and the dark theme.",
            "The theme follows your device's light or dark setting, or the one you choose.",
            "Pages work on small phones from 320 px wide and when text is zoomed to 200%.",
            "Animations are kept small and respect your device's reduced-motion setting.",
            "Our browser tests scan the main pages with the axe accessibility checker on every change.",
          ]}
        />
      </PageSection>

      <PageSection id="known-issues" title="Known limitations">
        <BulletList
          items={[
            "SMS vouchers are sent as plain text; some ATMs' screens are not accessible, which we can't control. Your recipient can call us for help at the ATM.",
            "The site is in English only for now.",
          ]}
        />
      </PageSection>

      <PageSection id="feedback" title="Tell us about a barrier">
        <p>
          If something on Thumela is hard to use, please tell us at{" "}
          <a href={`mailto:${COMPANY.accessibilityEmail}`} className={proseLink}>
            {COMPANY.accessibilityEmail}
          </a>{" "}
          or call {COMPANY.phoneDisplay}. We reply within 2 business days, and we can help you send money over the phone in
          the meantime.
        </p>
      </PageSection>
    </PublicPage>
  );
}
