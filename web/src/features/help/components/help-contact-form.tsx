import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm, useWatch } from "react-hook-form";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { FieldError } from "@/components/ui/field-error";
import { Input, Label } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { cn } from "@/lib/cn";
import { failureToast } from "@/lib/failure-toast";
import { HELP_KIND, NOT_SENT_TITLE, supportFailure, useReplyTo, useSubmitSupportMessage, withReference } from "../api/support";
import { FEEDBACK_TOAST, HELP_CONTACT_TYPES, MISSING_INFORMATION, helpContactSchema, visitorHelpContactSchema } from "../lib/forms";
import type { HelpContactValues } from "../lib/forms";
import { ReplyEmailField } from "./reply-email-field";
import { SentNotice } from "./sent-notice";

const DEFAULTS: HelpContactValues = { type: "question", subject: "", message: "", email: "" };

const signedInResolver = zodResolver(helpContactSchema);
const visitorResolver = zodResolver(visitorHelpContactSchema);

/**
 * The spec's 'Missing information' toast under one id, as the card dialog's 'Missing fields':
 * pressing Submit again replaces it rather than stacking a copy, and a form that passes its
 * checks dismisses it.
 */
const missingInformationToast = failureToast("help-contact-missing-information");

/**
 * Help Center → Contact Us. Signed in, the message goes to the support inbox under the
 * account's name and e-mail (the BFF adds them; the form says where the reply goes); a
 * signed-out visitor (help is public) gives an e-mail address for the reply, as on /feedback.
 * The spec's 'Feedback submitted' toast then quotes the ticket, which also stays on the page,
 * and the form clears. A missing subject or message is said once, by the spec's toast
 * ('Missing information' / 'Please fill in all required fields.'; the toaster is a live region,
 * so screen readers hear it), the empty fields are marked invalid and the focus goes to the
 * first of them, as the card dialog refuses its empty fields. A refusal (too many messages,
 * the server's own checks) keeps what was typed.
 */
export function HelpContactForm() {
  const submit = useSubmitSupportMessage();
  const [ticket, setTicket] = useState<string>();
  const { accountEmail, loading: sessionLoading, resolver, replyEmail } = useReplyTo(signedInResolver, visitorResolver);
  const {
    register,
    handleSubmit,
    reset,
    control,
    setError,
    formState: { errors },
  } = useForm<HelpContactValues>({ resolver, defaultValues: DEFAULTS });
  const type = useWatch({ control, name: "type" });

  const onValid = async (values: HelpContactValues) => {
    missingInformationToast.dismiss();
    setTicket(undefined);
    try {
      const response = await submit.mutateAsync({
        kind: HELP_KIND[values.type],
        email: replyEmail(values.email),
        subject: values.subject,
        message: values.message,
      });
      toast.success(FEEDBACK_TOAST.title, { description: withReference(FEEDBACK_TOAST.description, response.ticket) });
      setTicket(response.ticket);
      reset(DEFAULTS);
    } catch (error) {
      const { description, violations } = supportFailure(error);
      for (const v of violations) {
        if (v.field === "subject" || v.field === "message" || v.field === "email") setError(v.field, { message: v.description });
      }
      toast.error(NOT_SENT_TITLE, { description });
    }
  };
  // The spec's toast is for a missing subject or message (react-hook-form then focuses the
  // first invalid field); the visitor's e-mail address says what is wrong under itself.
  const onInvalid = (found: typeof errors) => {
    if (isMissing(found.subject) || isMissing(found.message)) {
      missingInformationToast.show(MISSING_INFORMATION.title, { description: MISSING_INFORMATION.description });
    } else {
      missingInformationToast.dismiss();
    }
  };

  // An empty field is said by the toast alone; a field that is filled in but refused (too long,
  // the server's own check) says why under itself.
  const problem = (name: "subject" | "message") => (isMissing(errors[name]) ? undefined : errors[name]?.message);
  const field = (name: "subject" | "message") => ({
    "aria-invalid": errors[name] ? true : undefined,
    "aria-describedby": problem(name) ? `help-${name}-error` : undefined,
  });

  return (
    <form
      noValidate
      onSubmit={(event) => void handleSubmit(onValid, onInvalid)(event)}
      className="space-y-5"
      aria-busy={submit.isPending || undefined}
    >
      <SentNotice ticket={ticket} />
      <fieldset disabled={submit.isPending}>
        <legend className="mb-1.5 text-sm font-medium text-slate-700 dark:text-slate-200">What can we help with?</legend>
        <div className="flex flex-wrap gap-2">
          {HELP_CONTACT_TYPES.map((option) => (
            <label
              key={option.value}
              className={cn(
                "inline-flex cursor-pointer items-center rounded-lg border px-4 py-2 text-sm font-medium transition-colors has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand-500",
                type === option.value
                  ? "border-brand-700 bg-brand-700 text-white dark:border-brand-500 dark:bg-brand-600"
                  : "border-slate-300 bg-white text-slate-800 hover:bg-slate-50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800",
              )}
            >
              <input type="radio" value={option.value} className="sr-only" {...register("type")} />
              {option.label}
            </label>
          ))}
        </div>
      </fieldset>
      <div>
        <Label htmlFor="help-subject">Subject</Label>
        <Input id="help-subject" readOnly={submit.isPending} {...field("subject")} {...register("subject")} />
        <FieldError id="help-subject-error" message={problem("subject")} />
      </div>
      <div>
        <Label htmlFor="help-message">Message</Label>
        <Textarea id="help-message" rows={6} readOnly={submit.isPending} {...field("message")} {...register("message")} />
        <FieldError id="help-message-error" message={problem("message")} />
      </div>
      <ReplyEmailField
        id="help-email"
        accountEmail={accountEmail}
        loading={sessionLoading}
        error={errors.email?.message}
        readOnly={submit.isPending}
        registration={register("email")}
      />
      <Button type="submit" busy={submit.isPending}>
        {submit.isPending ? "Sending..." : "Submit"}
      </Button>
    </form>
  );
}

/** An empty subject or message (the schema's `min(1)`): the spec's 'Missing information'. */
function isMissing(error: { type?: string } | undefined): boolean {
  return error?.type === "too_small";
}
