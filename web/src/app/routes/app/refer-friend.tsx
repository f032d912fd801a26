import { ComingSoon } from "@/components/ui/coming-soon";

export default function ReferFriendPage() {
  return <ComingSoon title="Refer a Friend" />;
}
