import type { PaymentMethod } from "@/gen/thumela/bff/v1/bff_pb";
import { PaymentMethodDialog } from "./payment-method-dialog";

/**
 * The 'Add Payment Method' card dialog, for reuse outside /payment-methods (the send-money
 * wizard's 'Add New Card'). It calls PaymentMethodsService.AddCard, shows the page's error
 * toasts ('Failed to tokenize card', …), refreshes the ListPaymentMethods cache, closes itself
 * and hands the new card to `onAdded`, which confirms it (e.g. selects it and toasts
 * 'Card added successfully'); the page's 'Payment method added' is not shown as well. Features do not import each other (STYLE.md rule 10): compose it
 * in the route (app/routes/app/send-money.tsx) and pass it to the wizard, e.g. as a render prop.
 *
 *   <AddCardDialog open={open} onOpenChange={setOpen} onAdded={(card) => select(card.id)} />
 */
export function AddCardDialog({
  open,
  onOpenChange,
  onAdded,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onAdded: (paymentMethod: PaymentMethod) => void;
}) {
  return <PaymentMethodDialog open={open} onOpenChange={onOpenChange} onAdded={onAdded} />;
}
