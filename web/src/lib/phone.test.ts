import { describe, expect, it } from "vitest";
import { formatPhone, phoneForField, saMobileE164 } from "./phone";

describe("formatPhone", () => {
  it("groups a South African mobile number in E.164", () => {
    expect(formatPhone("+27821234567")).toBe("+27 82 123 4567");
  });

  it("leaves anything else alone", () => {
    expect(formatPhone("")).toBe("");
    expect(formatPhone("+442071234567")).toBe("+442071234567");
  });
});

describe("phoneForField", () => {
  // As the field reads when a saved recipient is picked, whatever notation a link carried.
  it.each([
    ["+27825550143", "+27 82 555 0143"],
    ["0825550143", "+27 82 555 0143"],
    ["082 555 0143", "+27 82 555 0143"],
    ["27825550143", "+27 82 555 0143"],
    [" +27 82 555 0143 ", "+27 82 555 0143"],
  ])("shows %j as %j", (text, shown) => {
    expect(phoneForField(text)).toBe(shown);
  });

  it("leaves a number that is not a South African mobile as given, for the sender to correct", () => {
    expect(phoneForField(" 011 123 4567 ")).toBe("011 123 4567");
    expect(phoneForField("+442071234567")).toBe("+442071234567");
    expect(phoneForField("")).toBe("");
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
    // Notations libphonenumber reads too, so the transfers service accepts them.
    ["0027 82 123 4567", "+27821234567"],
    ["+27 (0)82 123 4567", "+27821234567"],
    ["27 082 123 4567", "+27821234567"],
    ["82 123 4567", "+27821234567"],
    ["++27 82 123 4567", "+27821234567"],
    ["  082.123.4567 ", "+27821234567"],
    // Ranges that are mobile in its metadata besides 06x, 07x and 081-085.
    ["075 123 4567", "+27751234567"],
    ["087 158 1234", "+27871581234"],
    ["050 012 3456", "+27500123456"],
  ])("reads %j as %s", (text, e164) => {
    expect(saMobileE164(text)).toBe(e164);
  });

  it.each([
    "",
    "12345",
    "011 555 0101", // a landline
    "0800 848 635", // toll-free
    "0861 123 456", // shared cost
    "087 012 3456", // VoIP
    "082 123 456",
    "082 123 45678",
    "+44 20 7123 4567",
    "+1 415 555 0123",
    "082 abc 4567",
    "+0821234567",
    "082 123+4567",
    "0821234567+", // a + after the number, which the server's parser refuses
    "082\t123 4567",
    "082 123 4567 ext 12",
    "0 8 2 1 2 3 4 5 6 7 (home, mobile)",
    `082 123 4567${" ".repeat(20)}.`, // more than the server's 32 characters
  ])(
    "refuses %j",
    (text) => {
      expect(saMobileE164(text)).toBeUndefined();
    },
  );
});
