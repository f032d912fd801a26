import { describe, expect, it } from "vitest";
import { formatPhone } from "./phone";

describe("formatPhone", () => {
  it("groups a South African mobile number in E.164", () => {
    expect(formatPhone("+27821234567")).toBe("+27 82 123 4567");
  });

  it("leaves anything else alone", () => {
    expect(formatPhone("")).toBe("");
    expect(formatPhone("+442071234567")).toBe("+442071234567");
  });
});
