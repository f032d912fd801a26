import { RecipientsPage } from "@/features/recipients";

export default function RecipientsRoute() {
  return <RecipientsPage />;
}
