import { ComingSoon } from "@/components/ui/coming-soon";

export default function SendMoneyPage() {
  return <ComingSoon title="Send Money" subtitle="Send money to any ATM in South Africa quickly and securely." />;
}
