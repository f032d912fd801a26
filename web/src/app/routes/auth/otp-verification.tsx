import { AuthCard } from "@/features/auth/components/auth-card";
import { MissingEmailNotice, OtpForm, usePendingVerification } from "@/features/auth/components/otp-form";

export default function OtpVerificationPage() {
  const pending = usePendingVerification();
  return (
    <AuthCard
      title="Verify Your Identity"
      subtitle={
        pending ? (
          <>
            We sent a 6-digit code to <strong className="font-medium text-slate-900 dark:text-white">{pending.email}</strong>.
          </>
        ) : undefined
      }
    >
      {pending ? <OtpForm pending={pending} /> : <MissingEmailNotice />}
    </AuthCard>
  );
}
