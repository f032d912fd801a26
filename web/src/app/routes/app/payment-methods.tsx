import { ComingSoon } from "@/components/ui/coming-soon";

export default function PaymentMethodsPage() {
  return <ComingSoon title="Payment Methods" subtitle="Manage your cards and bank accounts for sending money." />;
}
