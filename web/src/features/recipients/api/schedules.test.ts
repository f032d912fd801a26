import { describe, expect, it } from "vitest";
import { SCHEDULE_MESSAGES, scheduleSchema } from "./schedules";

const TODAY = "2025-03-10";
const valid = { amount: "150", frequency: "weekly", startDate: TODAY, endDate: "", paymentMethodId: "pm-1" } as const;
const amountMessages = (amount: string) => {
  const result = scheduleSchema(TODAY).safeParse({ ...valid, amount });
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
};

describe("scheduleSchema: the amount", () => {
  it.each(["150", "R150", "r 1 500,00"])("accepts %j", (amount) => {
    expect(amountMessages(amount)).toEqual([]);
  });

  it.each(["", "0", "R0,00", "-50"])("refuses %j as not above zero, in the wizard's words", (amount) => {
    expect(amountMessages(amount)).toEqual([SCHEDULE_MESSAGES.amountInvalid]);
  });

  // Text that is no amount is not 'not greater than zero'.
  it.each(["abc", "1.234", "1,500,50"])("says %j cannot be read", (amount) => {
    expect(amountMessages(amount)).toEqual(["We can't read that amount. Enter it in rand, such as 150 or 1 500."]);
  });

  it("asks for notes", () => {
    expect(amountMessages("R155")).toEqual([SCHEDULE_MESSAGES.amountNotes]);
  });
});
