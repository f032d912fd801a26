import { describe, expect, it } from "vitest";
import { displayName, initials, shortName } from "./user-display";

describe("displayName and initials", () => {
  it.each([
    [{ firstName: "Thandi", lastName: "Mokoena", email: "t@example.co.za" }, "Thandi Mokoena", "TM"],
    [{ firstName: "Thandi", lastName: "", email: "t@example.co.za" }, "Thandi", "T"],
    [{ firstName: "  ", lastName: "Mokoena", email: "sipho@example.co.za" }, "sipho", "S"],
    [{ email: "naledi.k@example.co.za" }, "naledi.k", "N"],
    [{ email: "" }, "User", "U"],
    [{}, "User", "U"],
    [{ email: "@example.co.za" }, "User", "U"],
    [{ firstName: " élise ", lastName: " du toit " }, "élise du toit", "ÉD"],
  ])("%o → %s / %s", (user, name, letters) => {
    expect(displayName(user)).toBe(name);
    expect(initials(user)).toBe(letters);
  });
});

describe("shortName (the top bar on a phone)", () => {
  it.each([
    [{ firstName: "Thandi", lastName: "Mokoena", email: "t@example.co.za" }, "Thandi"],
    [{ firstName: " Thandi ", lastName: "" }, "Thandi"],
    [{ firstName: "  ", lastName: "Mokoena", email: "sipho@example.co.za" }, "sipho"],
    [{ email: "naledi.k@example.co.za" }, "naledi.k"],
    [{}, "User"],
  ])("%o → %s", (user, name) => {
    expect(shortName(user)).toBe(name);
  });
});
