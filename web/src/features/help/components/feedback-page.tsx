import { zodResolver } from "@hookform/resolvers/zod";
import { Star } from "lucide-react";
import { useState } from "react";
import { useForm, useWatch } from "react-hook-form";
import { toast } from "sonner";
import { PublicPage } from "@/components/layout/public-shell-page";
import { Button } from "@/components/ui/button";
import { FieldError } from "@/components/ui/field-error";
import { Label } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Textarea } from "@/components/ui/textarea";
import { SupportMessageKind } from "@/gen/thumela/bff/v1/bff_pb";
import { cn } from "@/lib/cn";
import { NOT_SENT_TITLE, supportFailure, useReplyTo, useSubmitSupportMessage, withReference } from "../api/support";
import { FEEDBACK_PURPOSES, FEEDBACK_TOAST, RECOMMEND_OPTIONS, feedbackSchema, visitorFeedbackSchema } from "../lib/forms";
import type { FeedbackValues } from "../lib/forms";
import { ReplyEmailField } from "./reply-email-field";
import { SentNotice } from "./sent-notice";

// Nothing chosen yet: the schema turns the empty choices into its "please choose" messages.
const DEFAULTS = {
  email: "",
  rating: undefined,
  purpose: "",
  likes: "",
  improvements: "",
  recommend: undefined,
} as unknown as FeedbackValues;

// The answers travel as the message's details, under these names.
const DETAIL_FIELDS = ["rating", "purpose", "likes", "improvements", "recommend"] as const;
const RATINGS = ["1", "2", "3", "4", "5"] as const;
const RATING_WORDS: Record<(typeof RATINGS)[number], string> = {
  "1": "Very poor",
  "2": "Poor",
  "3": "Okay",
  "4": "Good",
  "5": "Excellent",
};

const legend = "mb-2 text-sm font-medium text-slate-700 dark:text-slate-200";
const choice =
  "inline-flex cursor-pointer items-center gap-1.5 rounded-lg border px-3 py-2 text-sm font-medium transition-colors " +
  "has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-brand-500";
const chosen = "border-brand-700 bg-brand-700 text-white dark:border-brand-500 dark:bg-brand-600";
const unchosen =
  "border-slate-300 bg-white text-slate-800 hover:bg-slate-50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800";

const signedInResolver = zodResolver(feedbackSchema);
const visitorResolver = zodResolver(visitorFeedbackSchema);

/**
 * The public feedback page. The answers go to the support inbox as a feedback message (the
 * spec's "not wired" is the old client's shortcut, made true by issue 12); the spec's toast
 * then quotes the ticket. A signed-out visitor also gives an e-mail address for the reply; a
 * signed-in sender's reply goes to the account's.
 */
export default function FeedbackPage() {
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
  } = useForm<FeedbackValues>({ resolver, defaultValues: DEFAULTS });
  const [rating, recommend] = useWatch({ control, name: ["rating", "recommend"] });

  const onValid = async (values: FeedbackValues) => {
    setTicket(undefined);
    const details: Record<string, string> = {};
    for (const name of DETAIL_FIELDS) {
      const value = String(values[name] ?? "").trim();
      if (value) details[name] = value;
    }
    try {
      const response = await submit.mutateAsync({
        kind: SupportMessageKind.FEEDBACK,
        email: replyEmail(values.email),
        subject: "Feedback",
        details,
      });
      toast.success(FEEDBACK_TOAST.title, { description: withReference(FEEDBACK_TOAST.description, response.ticket) });
      setTicket(response.ticket);
      reset(DEFAULTS);
    } catch (error) {
      const { description, violations } = supportFailure(error);
      for (const v of violations) {
        if (v.field === "email") setError("email", { message: v.description });
      }
      toast.error(NOT_SENT_TITLE, { description });
    }
  };

  return (
    <PublicPage title="Feedback" lead="Tell us how Thumela worked for you. It takes a minute and helps us improve.">
      <form noValidate onSubmit={(event) => void handleSubmit(onValid)(event)} className="space-y-7" aria-busy={submit.isPending || undefined}>
        <SentNotice ticket={ticket} />
        <fieldset aria-describedby={errors.rating ? "feedback-rating-error" : undefined}>
          <legend className={legend}>How would you rate Thumela?</legend>
          <div className="flex flex-wrap gap-2">
            {RATINGS.map((value) => (
              <label key={value} className={cn(choice, rating === value ? chosen : unchosen)}>
                <input type="radio" value={value} className="sr-only" {...register("rating")} />
                <Star aria-hidden="true" className={cn("size-4", rating && value <= rating && "fill-current")} />
                <span aria-hidden="true">{value}</span>
                <span className="sr-only">
                  {value} out of 5, {RATING_WORDS[value]}
                </span>
              </label>
            ))}
          </div>
          <FieldError id="feedback-rating-error" message={errors.rating?.message} />
        </fieldset>

        <div>
          <Label htmlFor="feedback-purpose">What did you use Thumela for?</Label>
          <NativeSelect
            id="feedback-purpose"
            aria-invalid={errors.purpose ? true : undefined}
            aria-describedby={errors.purpose ? "feedback-purpose-error" : undefined}
            {...register("purpose")}
          >
            <option value="" disabled>
              Choose one
            </option>
            {FEEDBACK_PURPOSES.map((purpose) => (
              <option key={purpose} value={purpose}>
                {purpose}
              </option>
            ))}
          </NativeSelect>
          <FieldError id="feedback-purpose-error" message={errors.purpose?.message} />
        </div>

        <div>
          <Label htmlFor="feedback-likes">What did you like?</Label>
          <Textarea id="feedback-likes" rows={4} {...register("likes")} />
          <FieldError id="feedback-likes-error" message={errors.likes?.message} />
        </div>

        <div>
          <Label htmlFor="feedback-improvements">What could we improve?</Label>
          <Textarea id="feedback-improvements" rows={4} {...register("improvements")} />
          <FieldError id="feedback-improvements-error" message={errors.improvements?.message} />
        </div>

        <fieldset aria-describedby={errors.recommend ? "feedback-recommend-error" : undefined}>
          <legend className={legend}>Would you recommend Thumela to a friend?</legend>
          <div className="flex flex-wrap gap-2">
            {RECOMMEND_OPTIONS.map((option) => (
              <label key={option.value} className={cn(choice, "px-4", recommend === option.value ? chosen : unchosen)}>
                <input type="radio" value={option.value} className="sr-only" {...register("recommend")} />
                {option.label}
              </label>
            ))}
          </div>
          <FieldError id="feedback-recommend-error" message={errors.recommend?.message} />
        </fieldset>

        <ReplyEmailField
          id="feedback-email"
          accountEmail={accountEmail}
          loading={sessionLoading}
          error={errors.email?.message}
          registration={register("email")}
        />

        <Button type="submit" busy={submit.isPending}>
          {submit.isPending ? "Sending..." : "Submit Feedback"}
        </Button>
      </form>
    </PublicPage>
  );
}
