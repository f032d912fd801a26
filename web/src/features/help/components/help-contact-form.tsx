import { zodResolver } from "@hookform/resolvers/zod";
import { useForm } from "react-hook-form";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { FormAlert } from "@/components/ui/form-alert";
import { Input, Label } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { cn } from "@/lib/cn";
import { FEEDBACK_TOAST, HELP_CONTACT_TYPES, MISSING_INFORMATION, helpContactSchema } from "../lib/forms";
import type { HelpContactValues } from "../lib/forms";

const DEFAULTS: HelpContactValues = { type: "question", subject: "", message: "" };

/**
 * Help Center → Contact Us. The spec: no call is made. A complete form shows the spec's
 * 'Feedback submitted' toast and clears; a missing subject or message shows 'Missing
 * information: Please fill in all required fields.' as a toast and inline.
 */
export function HelpContactForm() {
  const {
    register,
    handleSubmit,
    reset,
    watch,
    formState: { errors, isSubmitted },
  } = useForm<HelpContactValues>({ resolver: zodResolver(helpContactSchema), defaultValues: DEFAULTS });
  const type = watch("type");
  const missing = isSubmitted && Boolean(errors.subject || errors.message);

  const onValid = () => {
    toast.success(FEEDBACK_TOAST.title, { description: FEEDBACK_TOAST.description });
    reset(DEFAULTS);
  };
  const onInvalid = () => {
    toast.error(MISSING_INFORMATION.title, { description: MISSING_INFORMATION.description });
  };

  return (
    <form noValidate onSubmit={handleSubmit(onValid, onInvalid)} className="space-y-5" aria-describedby="help-contact-error">
      <FormAlert
        id="help-contact-error"
        message={missing ? `${MISSING_INFORMATION.title}: ${MISSING_INFORMATION.description}` : undefined}
      />
      <fieldset>
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
        <Input id="help-subject" aria-invalid={errors.subject ? true : undefined} {...register("subject")} />
      </div>
      <div>
        <Label htmlFor="help-message">Message</Label>
        <Textarea id="help-message" rows={6} aria-invalid={errors.message ? true : undefined} {...register("message")} />
      </div>
      <Button type="submit">Submit</Button>
    </form>
  );
}
