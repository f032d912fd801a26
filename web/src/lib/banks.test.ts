import { describe, expect, it } from "vitest";
import { Bank } from "@/gen/thumela/bff/v1/bff_pb";
import { bankAtm, bankName } from "./banks";

describe("banks", () => {
  it("names the five banks", () => {
    expect([Bank.STANDARD_BANK, Bank.ABSA, Bank.FNB, Bank.NEDBANK, Bank.CAPITEC].map(bankName)).toEqual([
      "Standard Bank",
      "ABSA",
      "FNB",
      "Nedbank",
      "Capitec",
    ]);
    expect(bankName(Bank.UNSPECIFIED)).toBe("");
  });

  it("says 'an FNB ATM' and 'a Capitec ATM'", () => {
    expect(bankAtm(Bank.FNB)).toBe("an FNB ATM");
    expect(bankAtm(Bank.ABSA)).toBe("an ABSA ATM");
    expect(bankAtm(Bank.CAPITEC)).toBe("a Capitec ATM");
    expect(bankAtm(Bank.UNSPECIFIED)).toBe("an ATM");
  });
});
