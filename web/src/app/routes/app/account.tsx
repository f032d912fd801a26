import { AccountPage } from "@/features/account/components/account-page";
import { useSession } from "@/features/auth/api/session";

/** /account sits behind the signed-in layout's guard, so the session is known here. */
export default function AccountRoute() {
  const session = useSession();
  return <AccountPage email={session.data?.user?.email ?? ""} />;
}
