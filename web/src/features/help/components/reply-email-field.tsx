import type { UseFormRegisterReturn } from "react-hook-form";
import { FieldError } from "@/components/ui/field-error";
import { Input, Label } from "@/components/ui/input";

/**
 * The reply address of a support form: "We'll reply to …" for a signed-in sender, an e-mail
 * field for a visitor, nothing while the session is being read (useReplyTo).
 */
export function ReplyEmailField({
  id,
  accountEmail,
  loading,
  error,
  readOnly,
  registration,
}: {
  id: string;
  accountEmail: string | undefined;
  loading: boolean;
  error: string | undefined;
  readOnly?: boolean;
  registration: UseFormRegisterReturn;
}) {
  if (accountEmail) return <p className="text-sm text-slate-600 dark:text-slate-400">We'll reply to {accountEmail}.</p>;
  if (loading) return null;
  return (
    <div>
      <Label htmlFor={id}>Your email (so we can reply)</Label>
      <Input
        id={id}
        type="email"
        autoComplete="email"
        readOnly={readOnly}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        {...registration}
      />
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
