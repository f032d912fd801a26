import { Hero } from "@/features/marketing/components/hero";
import { HowItWorks } from "@/features/marketing/components/how-it-works";
import { PromoBanner } from "@/features/marketing/components/promo-banner";

export default function LandingPage() {
  return (
    <>
      <Hero />
      <HowItWorks />
      <PromoBanner />
    </>
  );
}
