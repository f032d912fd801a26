import { ComingSoon } from "@/components/ui/coming-soon";

export default function BetaFeaturesPage() {
  return <ComingSoon title="BETA Features" />;
}
