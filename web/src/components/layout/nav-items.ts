import { CircleHelp, CreditCard, FlaskConical, Gift, History, LayoutDashboard, Send, UserRound, UsersRound } from "lucide-react";
import type { LucideIcon } from "lucide-react";

export interface NavItem {
  to: string;
  label: string;
  icon: LucideIcon;
}

/** The signed-in navigation, in the spec's order. */
export const NAV_ITEMS: readonly NavItem[] = [
  { to: "/dashboard", label: "Dashboard", icon: LayoutDashboard },
  { to: "/send-money", label: "Send Money", icon: Send },
  { to: "/recipients", label: "Recipients", icon: UsersRound },
  { to: "/payment-methods", label: "Payment Methods", icon: CreditCard },
  { to: "/transactions", label: "Transaction History", icon: History },
  { to: "/account", label: "Account", icon: UserRound },
  { to: "/help", label: "Help Center", icon: CircleHelp },
  { to: "/refer-friend", label: "Refer a Friend", icon: Gift },
  { to: "/beta-features", label: "BETA Features", icon: FlaskConical },
];
