import { BANK_FEES, PLATFORM_FEE_TEXT } from "@/lib/fee-schedule";
import { VOUCHER_VALID_DAYS } from "@/lib/voucher";
import { formatMoney } from "@/lib/money";
import { PARTNER_BANKS, SUPPORT_HOURS } from "@/lib/site";

export interface FaqItem {
  id: string;
  question: string;
  answer: string;
}

export interface FaqGroup {
  id: string;
  title: string;
  items: readonly FaqItem[];
}

const banks = `${PARTNER_BANKS.slice(0, -1).join(", ")} and ${PARTNER_BANKS[PARTNER_BANKS.length - 1]}`;
const cheapest = Math.min(...BANK_FEES.map((bank) => bank.baseFeeCents));
const dearest = Math.max(...BANK_FEES.map((bank) => bank.baseFeeCents));

const A = {
  whatIsThumela:
    "Thumela lets you send cash from your Visa or Mastercard card to anyone in South Africa. Your recipient gets a voucher by SMS and withdraws the cash at an ATM.",
  noBankAccount:
    "No. Your recipient only needs a mobile phone that can receive an SMS. They withdraw the cash at an ATM of the bank you chose when sending, with the voucher number, the PIN and their phone number.",
  whichBanks: `You choose one bank when you send: ${banks}. Your recipient collects the cash at any ATM of that bank, and only there (each bank pays out its own cash vouchers), so pick the one with an ATM close to them.`,
  // "{limit:…}" tokens are the limits the server enforces, filled in where the answer is shown
  // (LimitText): the web keeps no copy of them.
  howMuch: `You can send from {limit:minimum} up to {limit:perTransfer} per transfer, with at most {limit:perDay} per day, {limit:perMonth} per calendar month and {limit:perYear} per calendar year (South African time). Fees do not count towards the limits. ATMs pay out notes, so the amount is whole rand in multiples of R10.`,
  howLong: `The voucher is valid for ${VOUCHER_VALID_DAYS} days. If it is not collected in time, it expires and we refund the full amount, fee included, to your card.`,
  cost: `You pay the cash-send fee of your recipient's bank (${formatMoney(cheapest)} to ${formatMoney(dearest)}) plus a ${PLATFORM_FEE_TEXT} platform fee. Your first transfer is free. The exact fee is shown before you confirm; see the Fee Schedule for every bank.`,
  cards:
    "Visa and Mastercard debit, cheque and credit cards. Paying straight from a bank account is coming soon: see BETA Features.",
  cardSafe:
    "Yes. Your card number is encrypted in our card vault and never shown in full again; we show only the last four digits. The CVV is used once and never stored.",
  defaultCard:
    "Go to Payment Methods, open the card's Options menu and choose Set as Default. The default card is selected first when you send money.",
  password:
    "Go to Account, open the Security tab and choose Change Password. You need your current password; the new one must be at least 8 characters.",
  profile: "Go to Account and choose Edit Profile to change your first name, last name or phone number.",
  closeAccount:
    "Contact us through Contact Us or Support and we will close it. By law (FICA) we keep your identity and transaction records for 5 years after that.",
  signUp:
    "Choose Get Started, enter your name, e-mail address and a password, then type the 6-digit code we e-mail you. It takes under 2 minutes.",
  whoCanUse: "Anyone aged 18 or older who lives in South Africa and has a Visa or Mastercard card.",
  howToSend:
    "Log in, choose Send Money, enter the amount (in multiples of R10) and your recipient's name, mobile number and the bank whose ATMs they will use, pick your card and confirm. We SMS the voucher to your recipient.",
  cancel: `Yes, as long as the cash has not been collected. Open the transfer in your Transaction History and cancel the voucher: you get the amount and the fee back. Uncollected vouchers also expire after ${VOUCHER_VALID_DAYS} days with a full refund.`,
  wrongNumber:
    "Open the transfer in your Transaction History and choose Change phone number: we send the voucher to the right number with a new voucher number, and the old one stops working at once. You can also cancel the voucher for a full refund. If the cash was already collected, contact us at once.",
  firstFree: "Yes. Your first transfer has no bank fee and no platform fee, whatever its amount within the normal limits.",
  limitsWhy: `South African law (FICA) asks us to limit abuse of money transfers. Each transfer must be at least {limit:minimum}. If a transfer would go over a limit, the app tells you which one and how much you can still send.`,
  withdraw:
    "At any ATM of the bank you chose when sending (another bank's ATM will not pay out the voucher), your recipient selects the cash-send or instant-money option, enters their phone number, the voucher number, the PIN and the full amount, and takes the cash. If you chose to give them the PIN yourself, the SMS carries only the voucher number.",
  pinAsk:
    "Never. Thumela will never ask for your password, one-time code, card PIN or CVV, and the voucher PIN goes only to your recipient (or, if you chose it yourself, only you and they know it). Anyone asking is a scammer.",
  privacy:
    "We use it only to run your account, send money, prevent fraud and meet the law, under POPIA. We never sell it. See our Privacy Policy.",
  support: `We offer ${SUPPORT_HOURS.always} by e-mail and for lost phones or fraud. Phone lines are open ${SUPPORT_HOURS.weekdays} and ${SUPPORT_HOURS.saturday}.`,
};

/** The Help Center's FAQ (signed in): the spec's four groups, three questions each. */
export const HELP_FAQ: readonly FaqGroup[] = [
  {
    id: "general",
    title: "General",
    items: [
      { id: "what-is-thumela", question: "What is Thumela?", answer: A.whatIsThumela },
      { id: "recipient-bank-account", question: "Does my recipient need a bank account?", answer: A.noBankAccount },
      { id: "which-atms", question: "Which banks' ATMs can my recipient use?", answer: A.whichBanks },
    ],
  },
  {
    id: "transfers",
    title: "Transfers",
    items: [
      { id: "how-much", question: "How much can I send?", answer: A.howMuch },
      { id: "how-long", question: "How long does my recipient have to collect the cash?", answer: A.howLong },
      { id: "cost", question: "How much does a transfer cost?", answer: A.cost },
    ],
  },
  {
    id: "payment-methods",
    title: "Payment Methods",
    items: [
      { id: "which-cards", question: "Which cards can I use?", answer: A.cards },
      { id: "card-safe", question: "Is my card information safe?", answer: A.cardSafe },
      { id: "default-card", question: "How do I change my default card?", answer: A.defaultCard },
    ],
  },
  {
    id: "account",
    title: "Account",
    items: [
      { id: "change-password", question: "How do I change my password?", answer: A.password },
      { id: "update-details", question: "How do I update my details?", answer: A.profile },
      { id: "close-account", question: "How do I close my account?", answer: A.closeAccount },
    ],
  },
];

/** The public FAQ page: five groups. */
export const PUBLIC_FAQ: readonly FaqGroup[] = [
  {
    id: "getting-started",
    title: "Getting started",
    items: [
      { id: "what-is-thumela", question: "What is Thumela?", answer: A.whatIsThumela },
      { id: "sign-up", question: "How do I sign up?", answer: A.signUp },
      { id: "who-can-use", question: "Who can use Thumela?", answer: A.whoCanUse },
    ],
  },
  {
    id: "sending-money",
    title: "Sending money",
    items: [
      { id: "how-to-send", question: "How do I send money?", answer: A.howToSend },
      { id: "cancel", question: "Can I cancel a transfer?", answer: A.cancel },
      { id: "wrong-number", question: "What if I entered the wrong phone number?", answer: A.wrongNumber },
    ],
  },
  {
    id: "fees-and-limits",
    title: "Fees and limits",
    items: [
      { id: "cost", question: "How much does a transfer cost?", answer: A.cost },
      { id: "first-free", question: "Is my first transfer really free?", answer: A.firstFree },
      { id: "limits", question: "How much can I send?", answer: `${A.howMuch} ${A.limitsWhy}` },
    ],
  },
  {
    id: "collecting-cash",
    title: "Collecting cash",
    items: [
      { id: "withdraw", question: "How does my recipient withdraw the cash?", answer: A.withdraw },
      { id: "which-atms", question: "Which ATMs can they use?", answer: A.whichBanks },
      { id: "how-long", question: "How long is a voucher valid?", answer: A.howLong },
    ],
  },
  {
    id: "security-and-privacy",
    title: "Security and privacy",
    items: [
      { id: "pin", question: "Will Thumela ever ask for my PIN or password?", answer: A.pinAsk },
      { id: "privacy", question: "What do you do with my personal information?", answer: A.privacy },
      { id: "support", question: "How do I get help?", answer: A.support },
    ],
  },
];
