import { Link } from "react-router";
import { AuthCard, textLinkClasses } from "@/features/auth/components/auth-card";

export default function ForgotPasswordPage() {
  return (
    <AuthCard
      title="Forgot Password"
      footer={
        <Link to="/login" className={textLinkClasses}>
          Back to login
        </Link>
      }
    >
      <div className="space-y-2 text-sm text-slate-700 dark:text-slate-300">
        <p className="font-medium">This page is coming soon.</p>
        <p>Resetting a password online is not available yet.</p>
      </div>
    </AuthCard>
  );
}
