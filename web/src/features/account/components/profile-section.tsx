import { Code } from "@connectrpc/connect";
import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { FieldError } from "@/components/ui/field-error";
import { Input, Label } from "@/components/ui/input";
import type { Profile } from "@/gen/thumela/bff/v1/bff_pb";
import { errorMessage, fieldViolations, hasCode } from "@/lib/errors";
import { markViolations } from "@/lib/form-violations";
import { formatPhone } from "@/lib/phone";
import { PHONE_PLACEHOLDER, PROFILE_UPDATE_FALLBACK, profileSchema, useUpdateProfile } from "../api/profile";
import type { ProfileValues } from "../api/profile";
import { useDisclosureFocus } from "./use-disclosure-focus";

/** The profiles service's field names (google.rpc.BadRequest) → the form's fields. */
const PROFILE_VIOLATION_FIELDS: Record<string, keyof ProfileValues> = {
  first_name: "firstName",
  last_name: "lastName",
  phone_number: "phoneNumber",
};

/** The Profile tab: the details read-only, or the edit form after 'Edit Profile'. */
export function ProfileSection({ profile, email }: { profile?: Profile; email: string }) {
  const [editing, setEditing] = useState(false);
  const { toggleRef, regionRef } = useDisclosureFocus(editing);
  return (
    <Card className="p-6">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 className="text-lg font-semibold">Profile</h2>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">Your name and mobile number.</p>
        </div>
        {!editing && (
          <Button ref={toggleRef} variant="outline" onClick={() => setEditing(true)}>
            Edit Profile
          </Button>
        )}
      </div>
      <div ref={regionRef} className="mt-6">
        {editing ? (
          <ProfileForm profile={profile} onDone={() => setEditing(false)} />
        ) : (
          <ProfileDetails profile={profile} email={email} />
        )}
      </div>
    </Card>
  );
}

function ProfileDetails({ profile, email }: { profile?: Profile; email: string }) {
  const rows: Array<[string, string]> = [
    ["First name", profile?.firstName ?? ""],
    ["Last name", profile?.lastName ?? ""],
    ["Email", email],
    ["Phone number", formatPhone(profile?.phoneNumber ?? "")],
  ];
  return (
    <dl className="grid grid-cols-1 gap-5 sm:grid-cols-2">
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt className="text-sm font-medium text-slate-500 dark:text-slate-400">{term}</dt>
          <dd className="mt-1 text-slate-900 wrap-anywhere dark:text-slate-100">
            {value.trim() ? (
              value
            ) : (
              <>
                <span aria-hidden="true">-</span>
                <span className="sr-only">Not provided</span>
              </>
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function ProfileForm({ profile, onDone }: { profile?: Profile; onDone: () => void }) {
  const update = useUpdateProfile();
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<ProfileValues>({
    resolver: zodResolver(profileSchema),
    defaultValues: {
      firstName: profile?.firstName ?? "",
      lastName: profile?.lastName ?? "",
      phoneNumber: formatPhone(profile?.phoneNumber ?? ""),
    },
  });

  const onSubmit = async (values: ProfileValues) => {
    try {
      await update.mutateAsync(values);
      toast.success("Profile updated", { description: "Your profile information has been updated successfully." });
      onDone();
    } catch (error) {
      toast.error("Update failed", { description: errorMessage(error, PROFILE_UPDATE_FALLBACK) });
      // The server's own field checks, under the fields they name.
      markViolations(hasCode(error, Code.InvalidArgument) ? fieldViolations(error) : [], PROFILE_VIOLATION_FIELDS, setError);
    }
  };

  const describedBy = (field: keyof ProfileValues, extra?: string) =>
    [errors[field] ? `profile-${field}-error` : undefined, extra].filter(Boolean).join(" ") || undefined;

  return (
    <form noValidate onSubmit={handleSubmit(onSubmit)} className="space-y-5">
      <div className="grid gap-5 sm:grid-cols-2">
        <div>
          <Label htmlFor="profile-firstName">First name</Label>
          <Input
            id="profile-firstName"
            autoComplete="given-name"
            aria-invalid={errors.firstName ? true : undefined}
            aria-describedby={describedBy("firstName")}
            {...register("firstName")}
          />
          <FieldError id="profile-firstName-error" message={errors.firstName?.message} />
        </div>
        <div>
          <Label htmlFor="profile-lastName">Last name</Label>
          <Input
            id="profile-lastName"
            autoComplete="family-name"
            aria-invalid={errors.lastName ? true : undefined}
            aria-describedby={describedBy("lastName")}
            {...register("lastName")}
          />
          <FieldError id="profile-lastName-error" message={errors.lastName?.message} />
        </div>
      </div>
      <div>
        <Label htmlFor="profile-phoneNumber">Phone number</Label>
        <Input
          id="profile-phoneNumber"
          type="tel"
          autoComplete="tel"
          inputMode="tel"
          placeholder={PHONE_PLACEHOLDER}
          aria-invalid={errors.phoneNumber ? true : undefined}
          aria-describedby={describedBy("phoneNumber", "profile-phoneNumber-hint")}
          {...register("phoneNumber")}
        />
        <FieldError id="profile-phoneNumber-error" message={errors.phoneNumber?.message} />
        <p id="profile-phoneNumber-hint" className="mt-1.5 text-xs text-slate-500 dark:text-slate-400">
          Optional. A South African mobile number.
        </p>
      </div>
      <div className="flex flex-wrap justify-end gap-3">
        <Button variant="outline" onClick={onDone} disabled={update.isPending}>
          Cancel
        </Button>
        <Button type="submit" busy={update.isPending}>
          {update.isPending ? "Saving..." : "Save Changes"}
        </Button>
      </div>
    </form>
  );
}
