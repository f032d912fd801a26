import { Link } from "react-router";
import { AuthCard, textLinkClasses } from "@/features/auth/components/auth-card";
import { ConnectionBanner } from "@/features/auth/components/connection-banner";
import { LoginForm } from "@/features/auth/components/login-form";

export default function LoginPage() {
  return (
    <div className="w-full max-w-md">
      <ConnectionBanner />
      <AuthCard
        title="Welcome Back"
        subtitle="Log in to send money to any ATM in South Africa."
        footer={
          <>
            Don't have an account?{" "}
            <Link to="/signup" className={textLinkClasses}>
              Sign up
            </Link>
          </>
        }
      >
        <LoginForm />
      </AuthCard>
    </div>
  );
}
