import { useEffect } from "react";
import { Hero } from "@/features/marketing/components/hero";
import { HowItWorks } from "@/features/marketing/components/how-it-works";
import { PromoBanner } from "@/features/marketing/components/promo-banner";
import { trackLandingPageViewOnce } from "@/features/marketing/lib/landing-analytics";

export default function LandingPage() {
  useEffect(() => trackLandingPageViewOnce(), []);
  return (
    <>
      <Hero />
      <HowItWorks />
      <PromoBanner />
    </>
  );
}
