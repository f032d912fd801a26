import { HelpCenter } from "@/features/help/components/help-center";

export default function HelpPage() {
  return <HelpCenter />;
}
