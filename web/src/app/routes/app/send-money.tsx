import { AddCardDialog } from "@/features/payment-methods";
import { SendMoneyWizard } from "@/features/transfers/components/send-money/send-money-wizard";

/** The wizard, with the payment-methods feature's add-card dialog composed in (STYLE.md rule 10). */
export default function SendMoneyPage() {
  return <SendMoneyWizard AddCardDialog={AddCardDialog} />;
}
