import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { Button } from "@/components/ui/button";
import { FieldError } from "@/components/ui/field-error";
import { Input, Label } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { SupportMessageKind } from "@/gen/thumela/bff/v1/bff_pb";
import { COMPANY, SUPPORT_HOURS } from "@/lib/site";
import { NOT_SENT_TITLE, supportFailure, useSubmitSupportMessage, withReference } from "../api/support";
import { contactSchema } from "../lib/forms";
import type { ContactValues } from "../lib/forms";
import { SentNotice } from "./sent-notice";

const DEFAULTS: ContactValues = { fullName: "", email: "", subject: "", message: "" };

export const CONTACT_SENT = {
  title: "Message sent",
  description: "Thank you for contacting us. We'll get back to you soon.",
} as const;

// The server's field names (SubmitSupportMessageRequest) and the form's.
const FORM_FIELD: Record<string, keyof ContactValues> = {
  name: "fullName",
  email: "email",
  subject: "subject",
  message: "message",
};

/**
 * The public contact page. The message goes to the support inbox (the spec's "not wired" is
 * the old client's shortcut, made true by issue 12); the toast and the page then quote the
 * ticket. A refusal keeps what was typed and marks the fields the server named.
 */
export default function ContactPage() {
  const submit = useSubmitSupportMessage();
  const [ticket, setTicket] = useState<string>();
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors },
  } = useForm<ContactValues>({ resolver: zodResolver(contactSchema), defaultValues: DEFAULTS });

  const onValid = async (values: ContactValues) => {
    setTicket(undefined);
    try {
      const response = await submit.mutateAsync({
        kind: SupportMessageKind.CONTACT,
        name: values.fullName,
        email: values.email,
        subject: values.subject,
        message: values.message,
      });
      toast.success(CONTACT_SENT.title, { description: withReference(CONTACT_SENT.description, response.ticket) });
      setTicket(response.ticket);
      reset(DEFAULTS);
    } catch (error) {
      const { description, violations } = supportFailure(error);
      for (const v of violations) {
        const name = FORM_FIELD[v.field];
        if (name) setError(name, { message: v.description });
      }
      toast.error(NOT_SENT_TITLE, { description });
    }
  };

  const field = (name: keyof ContactValues) => ({
    "aria-invalid": errors[name] ? true : undefined,
    "aria-describedby": errors[name] ? `contact-${name}-error` : undefined,
  });

  return (
    <PublicPage title="Contact" lead="Questions about a transfer, your account or Thumela in general? Send us a message.">
      <div className="grid gap-10 md:grid-cols-[1fr_16rem]">
        <form noValidate onSubmit={handleSubmit(onValid)} className="space-y-5" aria-busy={submit.isPending || undefined}>
          <SentNotice ticket={ticket} />
          <div>
            <Label htmlFor="contact-fullName">Full name</Label>
            <Input id="contact-fullName" autoComplete="name" {...field("fullName")} {...register("fullName")} />
            <FieldError id="contact-fullName-error" message={errors.fullName?.message} />
          </div>
          <div>
            <Label htmlFor="contact-email">Email</Label>
            <Input id="contact-email" type="email" autoComplete="email" {...field("email")} {...register("email")} />
            <FieldError id="contact-email-error" message={errors.email?.message} />
          </div>
          <div>
            <Label htmlFor="contact-subject">Subject</Label>
            <Input id="contact-subject" {...field("subject")} {...register("subject")} />
            <FieldError id="contact-subject-error" message={errors.subject?.message} />
          </div>
          <div>
            <Label htmlFor="contact-message">Message</Label>
            <Textarea id="contact-message" rows={6} {...field("message")} {...register("message")} />
            <FieldError id="contact-message-error" message={errors.message?.message} />
          </div>
          <Button type="submit" busy={submit.isPending}>
            {submit.isPending ? "Sending..." : "Send Message"}
          </Button>
        </form>
        <aside aria-label="Other ways to reach us" className="space-y-3 text-sm text-slate-700 dark:text-slate-300">
          <PageSection title="Other ways to reach us">
            <p>
              <a href={`mailto:${COMPANY.supportEmail}`} className={proseLink}>
                {COMPANY.supportEmail}
              </a>
            </p>
            <p>
              <a href={COMPANY.phoneHref} className={proseLink}>
                {COMPANY.phoneDisplay}
              </a>
              <br />
              {SUPPORT_HOURS.weekdays}
              <br />
              {SUPPORT_HOURS.saturday}
            </p>
            <address className="not-italic">
              {COMPANY.addressLines.map((line) => (
                <span key={line} className="block">
                  {line}
                </span>
              ))}
            </address>
          </PageSection>
        </aside>
      </div>
    </PublicPage>
  );
}
