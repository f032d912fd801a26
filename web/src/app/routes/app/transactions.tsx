import { ComingSoon } from "@/components/ui/coming-soon";

export default function TransactionsPage() {
  return <ComingSoon title="Transaction History" />;
}
