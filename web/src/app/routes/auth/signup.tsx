import { Link } from "react-router";
import { AuthCard, textLinkClasses } from "@/features/auth/components/auth-card";
import { SignUpForm } from "@/features/auth/components/signup-form";

export default function SignUpPage() {
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
      <SignUpForm />
    </AuthCard>
  );
}
