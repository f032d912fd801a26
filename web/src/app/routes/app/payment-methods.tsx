import { PaymentMethodsPage } from "@/features/payment-methods/components/payment-methods-page";

export default function PaymentMethodsRoute() {
  return <PaymentMethodsPage />;
}
