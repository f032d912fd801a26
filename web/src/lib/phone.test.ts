import { describe, expect, it } from "vitest";
import { formatPhone, saMobileE164 } from "./phone";

describe("formatPhone", () => {
  it("groups a South African mobile number in E.164", () => {
    expect(formatPhone("+27821234567")).toBe("+27 82 123 4567");
  });

  it("leaves anything else alone", () => {
    expect(formatPhone("")).toBe("");
    expect(formatPhone("+442071234567")).toBe("+442071234567");
  });
});

describe("saMobileE164", () => {
  it.each([
    ["082 123 4567", "+27821234567"],
    ["0821234567", "+27821234567"],
    ["+27 82 123 4567", "+27821234567"],
    ["27821234567", "+27821234567"],
    ["(083) 555-0101", "+27835550101"],
    ["071 234 5678", "+27712345678"],
    ["060 123 4567", "+27601234567"],
  ])("reads %j as %s", (text, e164) => {
    expect(saMobileE164(text)).toBe(e164);
  });

  it.each(["", "011 555 0101", "0800 848 635", "082 123 456", "082 123 45678", "+44 20 7123 4567", "082 abc 4567", "+0821234567"])(
    "refuses %j",
    (text) => {
      expect(saMobileE164(text)).toBeUndefined();
    },
  );
});
