import { ReferFriend } from "@/features/referral/components/refer-friend";

/** The code, the link and the figures come from the server (CreditService.GetCredit). */
export default function ReferFriendPage() {
  return <ReferFriend />;
}
