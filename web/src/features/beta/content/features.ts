export interface BetaFeature {
  id: "pay-by-bank" | "more-banks-withdrawal";
  title: string;
  status: "Coming Soon" | "In Development";
  description: string;
  benefits: readonly string[];
}

/** The spec's two beta features, with their ids and statuses. Statuses are display text only. */
export const BETA_FEATURES: readonly BetaFeature[] = [
  {
    id: "pay-by-bank",
    title: "Pay by Bank",
    status: "Coming Soon",
    description:
      "Pay for a transfer straight from your bank account with an instant EFT, approved in your own banking app. No card needed.",
    benefits: [
      "Send money without a credit or debit card",
      "Approve each payment in your own banking app",
      "Money leaves your account only when you approve it",
    ],
  },
  {
    id: "more-banks-withdrawal",
    title: "More Banks & Withdrawal Points",
    status: "In Development",
    description:
      "More places for your recipient to collect cash: ATMs of more banks, and till points at supermarkets and other stores.",
    benefits: [
      "Collect at ATMs of more South African banks",
      "Withdraw cash at till points in participating stores",
      "Shorter trips for recipients in rural areas and townships",
    ],
  },
];
