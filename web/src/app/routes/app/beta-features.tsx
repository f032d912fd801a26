import { useSession } from "@/features/auth/api/session";
import { BetaFeatures } from "@/features/beta/components/beta-features";

/** The signed-in layout has checked the session; the waitlist is kept per user id. */
export default function BetaFeaturesPage() {
  const { data } = useSession();
  return <BetaFeatures userId={data?.user?.id ?? ""} />;
}
