import { useState } from "react";
import { Link } from "react-router";
import { AuthCard, textLinkClasses } from "@/features/auth/components/auth-card";
import { RESET_SENT_MESSAGE } from "@/features/account/api/password-reset";
import { RequestCodeForm, ResetPasswordForm } from "./forgot-password-form";
import type { ResetRequest } from "./forgot-password-form";

/** /forgot-password (DECISIONS.md): e-mail → the e-mailed 6-digit code + new password → /login. */
export default function ForgotPasswordPage() {
  const [request, setRequest] = useState<ResetRequest>();
  return (
    <AuthCard
      title="Forgot Password"
      subtitle={
        request
          ? RESET_SENT_MESSAGE
          : "Enter the email address of your account and we'll send you a 6-digit code to reset your password."
      }
      footer={
        <Link to="/login" className={textLinkClasses}>
          Back to login
        </Link>
      }
    >
      {request ? (
        <ResetPasswordForm request={request} onChangeEmail={() => setRequest(undefined)} />
      ) : (
        <RequestCodeForm onSent={setRequest} />
      )}
    </AuthCard>
  );
}
