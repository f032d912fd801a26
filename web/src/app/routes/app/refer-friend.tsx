import { useSession } from "@/features/auth/api/session";
import { ReferFriend } from "@/features/referral/components/refer-friend";

/** The signed-in layout has checked the session; the code is derived from the user id. */
export default function ReferFriendPage() {
  const { data } = useSession();
  return <ReferFriend userId={data?.user?.id ?? ""} />;
}
