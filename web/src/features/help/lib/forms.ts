import { z } from "@/lib/zod";

/** The spec's success toast for the help contact form and the feedback page. */
export const FEEDBACK_TOAST = {
  title: "Feedback submitted",
  description: "Thank you for your feedback! We'll get back to you soon.",
} as const;

/** The spec's validation message for the help contact form (toast title and description). */
export const MISSING_INFORMATION = {
  title: "Missing information",
  description: "Please fill in all required fields.",
} as const;

export const HELP_CONTACT_TYPES = [
  { value: "question", label: "Question" },
  { value: "issue", label: "Report Issue" },
  { value: "feedback", label: "Feedback" },
] as const;

/** The support inbox's limits (the notifications service refuses longer texts). */
export const SUPPORT_LIMITS = { name: 100, email: 254, subject: 200, message: 5000 } as const;

/** An e-mail address the reply goes to, required (a visitor's, or the contact page's). */
const requiredEmail = z
  .string()
  .trim()
  .min(1, "Please enter your email address.")
  .max(SUPPORT_LIMITS.email, "Please enter a valid email address.")
  .pipe(z.email("Please enter a valid email address."));

/**
 * Help Center → Contact Us: type (question by default), subject and message, both required.
 * The e-mail address is a visitor's (visitorHelpContactSchema); a signed-in sender's reply goes
 * to the account's address, and the field is not shown.
 */
export const helpContactSchema = z.object({
  type: z.enum(["question", "issue", "feedback"]),
  email: z.string(),
  subject: z
    .string()
    .trim()
    .min(1, MISSING_INFORMATION.description)
    .max(SUPPORT_LIMITS.subject, `Please keep the subject under ${SUPPORT_LIMITS.subject} characters.`),
  message: z
    .string()
    .trim()
    .min(1, MISSING_INFORMATION.description)
    .max(SUPPORT_LIMITS.message, `Please keep the message under ${SUPPORT_LIMITS.message.toLocaleString("en-US")} characters.`),
});
export type HelpContactValues = z.infer<typeof helpContactSchema>;

/**
 * Help Center → Contact Us for a signed-out visitor: an e-mail address too, for the reply (a
 * signed-in sender's goes to the account's address, which the BFF adds).
 */
export const visitorHelpContactSchema = helpContactSchema.extend({
  email: requiredEmail,
});

/** The public contact page. */
export const contactSchema = z.object({
  fullName: z
    .string()
    .trim()
    .min(1, "Please enter your full name.")
    .max(SUPPORT_LIMITS.name, `Please keep your name under ${SUPPORT_LIMITS.name} characters.`),
  email: requiredEmail,
  subject: z
    .string()
    .trim()
    .min(1, "Please enter a subject.")
    .max(SUPPORT_LIMITS.subject, `Please keep the subject under ${SUPPORT_LIMITS.subject} characters.`),
  message: z
    .string()
    .trim()
    .min(10, "Please write a message of at least 10 characters.")
    .max(SUPPORT_LIMITS.message, `Please keep the message under ${SUPPORT_LIMITS.message.toLocaleString("en-US")} characters.`),
});
export type ContactValues = z.infer<typeof contactSchema>;

export const FEEDBACK_PURPOSES = [
  "Sending money to family or friends",
  "Paying someone for goods or services",
  "Trying Thumela out",
  "Something else",
] as const;

export const RECOMMEND_OPTIONS = [
  { value: "yes", label: "Yes" },
  { value: "no", label: "No" },
  { value: "maybe", label: "Maybe" },
] as const;

/**
 * The public feedback page: rating, purpose and recommendation required; the two texts
 * optional. A signed-out visitor also gives an e-mail address, so that "We'll get back to you
 * soon" can be kept (a signed-in sender's reply goes to the account's address).
 */
export const feedbackSchema = z.object({
  email: z
    .string()
    .trim()
    .max(SUPPORT_LIMITS.email, "Please enter a valid email address.")
    .refine((value) => value === "" || z.email().safeParse(value).success, "Please enter a valid email address."),
  rating: z.enum(["1", "2", "3", "4", "5"], { error: "Please choose a rating from 1 to 5." }),
  purpose: z.enum(FEEDBACK_PURPOSES, { error: "Please tell us what you used Thumela for." }),
  likes: z.string().trim().max(2000, "Please keep this under 2,000 characters."),
  improvements: z.string().trim().max(2000, "Please keep this under 2,000 characters."),
  recommend: z.enum(["yes", "no", "maybe"], { error: "Please tell us whether you would recommend Thumela." }),
});
export type FeedbackValues = z.input<typeof feedbackSchema>;

/** /feedback for a signed-out visitor: the e-mail address is required. */
export const visitorFeedbackSchema = feedbackSchema.extend({
  email: requiredEmail,
});
