import { Code } from "@connectrpc/connect";
import { createConnectQueryKey } from "@connectrpc/connect-query";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { FieldError } from "@/components/ui/field-error";
import { Label } from "@/components/ui/input";
import { PasswordInput } from "@/components/ui/password-input";
import { AuthService } from "@/gen/thumela/bff/v1/bff_pb";
import { errorMessage, fieldViolations, hasCode } from "@/lib/errors";
import { markViolations } from "@/lib/form-violations";
import { failureToast } from "@/lib/failure-toast";
import {
  MIN_PASSWORD_LENGTH,
  PASSWORD_UPDATE_FALLBACK,
  WRONG_CURRENT_PASSWORD,
  changePasswordSchema,
  useChangePassword,
} from "../api/password";
import type { ChangePasswordValues } from "../api/password";
import { useInvalidateSessions } from "../api/sessions";
import { useDisclosureFocus } from "./use-disclosure-focus";

const EMPTY: ChangePasswordValues = { currentPassword: "", newPassword: "", confirmPassword: "" };

// A mistyped current password's "Update failed" goes when the password is then changed.
const UPDATE_FAILED = failureToast("password-update-failed");

/** The Security tab: 'Change Password' opens the form; success closes and clears it. */
export function SecuritySection() {
  const [open, setOpen] = useState(false);
  const { toggleRef, regionRef } = useDisclosureFocus(open);
  return (
    <Card className="p-6">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 className="text-lg font-semibold">Password</h2>
          <p className="mt-1 max-w-prose text-sm text-slate-600 dark:text-slate-400">
            To change your password you need to confirm your current password first. Your new password must be at
            least {MIN_PASSWORD_LENGTH} characters.
          </p>
        </div>
        {!open && (
          <Button ref={toggleRef} variant="outline" onClick={() => setOpen(true)}>
            Change Password
          </Button>
        )}
      </div>
      <div ref={regionRef}>
        {open && (
          <div className="mt-6">
            <ChangePasswordForm onClose={() => setOpen(false)} />
          </div>
        )}
      </div>
    </Card>
  );
}

/** identity's field names in a ChangePassword refusal, and the form's fields they are. */
const PASSWORD_VIOLATION_FIELDS: Record<string, keyof ChangePasswordValues> = {
  new_password: "newPassword",
  newPassword: "newPassword",
  current_password: "currentPassword",
  currentPassword: "currentPassword",
};

function isWrongCurrentPassword(error: unknown): boolean {
  return (
    (hasCode(error, Code.InvalidArgument) || hasCode(error, Code.Unauthenticated)) &&
    errorMessage(error, "") === WRONG_CURRENT_PASSWORD
  );
}

function ChangePasswordForm({ onClose }: { onClose: () => void }) {
  const change = useChangePassword();
  const queryClient = useQueryClient();
  const invalidateSessions = useInvalidateSessions();
  const {
    register,
    handleSubmit,
    setError,
    reset,
    formState: { errors },
  } = useForm<ChangePasswordValues>({ resolver: zodResolver(changePasswordSchema), defaultValues: EMPTY });

  const onSubmit = async (values: ChangePasswordValues) => {
    try {
      await change.mutateAsync(values);
      // The change signed out every other session: the list below must not offer them still.
      void invalidateSessions();
      UPDATE_FAILED.dismiss();
      toast.success("Password updated", { description: "Your password has been updated successfully." });
      reset(EMPTY);
      onClose();
    } catch (error) {
      if (isWrongCurrentPassword(error)) {
        setError("currentPassword", { message: WRONG_CURRENT_PASSWORD }, { shouldFocus: true });
        UPDATE_FAILED.show("Update failed", { description: WRONG_CURRENT_PASSWORD });
        return;
      }
      UPDATE_FAILED.show("Update failed", { description: errorMessage(error, PASSWORD_UPDATE_FALLBACK) });
      // The field identity refused (a common password, one like the e-mail address) is marked
      // and takes the focus, as on sign-up: the fix starts where the problem is.
      markViolations(hasCode(error, Code.InvalidArgument) ? fieldViolations(error) : [], PASSWORD_VIOLATION_FIELDS, setError);
      if (hasCode(error, Code.Unauthenticated)) {
        // The session itself ended: let the route guard re-check it.
        void queryClient.invalidateQueries({
          queryKey: createConnectQueryKey({ schema: AuthService.method.getSession, cardinality: undefined }),
        });
      }
    }
  };

  const field = (name: keyof ChangePasswordValues, label: string, autoComplete: string) => (
    <div>
      <Label htmlFor={`password-${name}`}>{label}</Label>
      <PasswordInput
        id={`password-${name}`}
        autoComplete={autoComplete}
        aria-invalid={errors[name] ? true : undefined}
        aria-describedby={errors[name] ? `password-${name}-error` : undefined}
        {...register(name)}
      />
      <FieldError id={`password-${name}-error`} message={errors[name]?.message} />
    </div>
  );

  return (
    <form noValidate onSubmit={handleSubmit(onSubmit)} className="max-w-md space-y-5">
      {field("currentPassword", "Current password", "current-password")}
      {field("newPassword", "New password", "new-password")}
      {field("confirmPassword", "Confirm new password", "new-password")}
      <div className="flex flex-wrap gap-3">
        <Button
          variant="outline"
          disabled={change.isPending}
          onClick={() => {
            reset(EMPTY);
            onClose();
          }}
        >
          Cancel
        </Button>
        <Button type="submit" busy={change.isPending}>
          {change.isPending ? "Updating..." : "Update Password"}
        </Button>
      </div>
    </form>
  );
}
