import { Bank } from "@/gen/thumela/bff/v1/bff_pb";

/**
 * The banks' names as ListBanks gives them, for texts about a transfer already made (the
 * dashboard, the history, the details dialog, live notices). The wizard lists the banks from
 * the server.
 */
export const BANK_NAME: Record<Bank, string> = {
  [Bank.UNSPECIFIED]: "",
  [Bank.STANDARD_BANK]: "Standard Bank",
  [Bank.ABSA]: "ABSA",
  [Bank.FNB]: "FNB",
  [Bank.NEDBANK]: "Nedbank",
  [Bank.CAPITEC]: "Capitec",
};

/** The bank's name; "" for one this client does not know. */
export function bankName(bank: Bank): string {
  return BANK_NAME[bank] ?? "";
}

// Said letter by letter ("eff-en-bee"), so "an".
const AN = new Set<Bank>([Bank.FNB, Bank.ABSA]);

/** 'an FNB ATM', 'a Capitec ATM': one of the bank's ATMs, in a sentence. */
export function bankAtm(bank: Bank): string {
  const name = bankName(bank);
  if (!name) return "an ATM";
  return `${AN.has(bank) ? "an" : "a"} ${name} ATM`;
}
