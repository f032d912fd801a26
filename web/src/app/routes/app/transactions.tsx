import { TransactionHistory } from "@/features/transfers/components/transaction-history";

export default function TransactionsPage() {
  return <TransactionHistory />;
}
