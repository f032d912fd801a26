import { zodResolver } from "@hookform/resolvers/zod";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { Button } from "@/components/ui/button";
import { FieldError } from "@/components/ui/field-error";
import { Input, Label } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { COMPANY, SUPPORT_HOURS } from "@/lib/site";
import { contactSchema } from "../lib/forms";
import type { ContactValues } from "../lib/forms";

const DEFAULTS: ContactValues = { fullName: "", email: "", subject: "", message: "" };

/** The public contact page. The spec: the form is not wired, so nothing is sent. */
export default function ContactPage() {
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<ContactValues>({ resolver: zodResolver(contactSchema), defaultValues: DEFAULTS });

  const onValid = () => {
    toast.success("Message sent", { description: "Thank you for contacting us. We'll get back to you soon." });
    reset(DEFAULTS);
  };

  const field = (name: keyof ContactValues) => ({
    "aria-invalid": errors[name] ? true : undefined,
    "aria-describedby": errors[name] ? `contact-${name}-error` : undefined,
  });

  return (
    <PublicPage title="Contact" lead="Questions about a transfer, your account or Thumela in general? Send us a message.">
      <div className="grid gap-10 md:grid-cols-[1fr_16rem]">
        <form noValidate onSubmit={handleSubmit(onValid)} className="space-y-5">
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
          <Button type="submit">Send Message</Button>
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
