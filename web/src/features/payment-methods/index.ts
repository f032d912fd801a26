/**
 * What other parts of the app may use from payment methods:
 * - AddCardDialog ({ open, onOpenChange, onAdded(paymentMethod) }): the add-card dialog of
 *   /payment-methods, for the send-money wizard's 'Add New Card' (see add-card-dialog.tsx).
 */
export { AddCardDialog } from "./components/add-card-dialog";
