import { Link, useSearchParams } from "react-router";
import { AuthCard, textLinkClasses } from "@/features/auth/components/auth-card";
import { SignUpForm } from "@/features/auth/components/signup-form";

/** /signup, or /signup?ref=CODE from a friend's referral link. */
export default function SignUpPage() {
  const [params] = useSearchParams();
  return (
    <AuthCard
      title="Create Your Account"
      subtitle="It takes under 2 minutes. Your first transfer is free."
      footer={
        <>
          Already have an account?{" "}
          <Link to="/login" className={textLinkClasses}>
            Log in
          </Link>
        </>
      }
    >
      <SignUpForm referral={params.get("ref")} />
    </AuthCard>
  );
}
