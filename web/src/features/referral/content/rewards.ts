import { NEW_USER_CREDIT, REFERRER_REWARD } from "@/lib/credit";

/** The spec's rewards: the new user gets R50 transfer credit; the referrer R100 per friend who completes a first transfer. */
export { NEW_USER_CREDIT, REFERRER_REWARD };

export const REFERRAL_STEPS = [
  { title: "Share your code", text: "Send your referral code or link to a friend by WhatsApp, SMS or e-mail." },
  {
    title: "Your friend signs up",
    text: `They create a Thumela account with your code and get ${NEW_USER_CREDIT} transfer credit.`,
  },
  {
    title: "You both get rewarded",
    text: `When your friend completes their first transfer, you get ${REFERRER_REWARD} transfer credit.`,
  },
] as const;
