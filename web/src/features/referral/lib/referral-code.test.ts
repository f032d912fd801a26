import { describe, expect, it } from "vitest";
import { fnv1a64, referralCode, referralLink } from "./referral-code";

describe("referral code", () => {
  it("is THU- and 8 Crockford base32 characters", () => {
    expect(referralCode("u-1")).toMatch(/^THU-[0-9A-HJKMNP-TV-Z]{8}$/);
  });

  it("is the same for the same user id, every time", () => {
    const id = "0b1f6f8e-2c4a-4d57-9a8e-51c1f0e3a9d2";
    expect(referralCode(id)).toBe(referralCode(id));
    // Pinned: the derivation must never change, or every shared code would break.
    expect(referralCode("u-1")).toBe("THU-2JT0DZ43");
    expect(referralCode(id)).toBe("THU-M1G9PWFJ");
    expect(fnv1a64("")).toBe(0xcbf29ce484222325n);
    expect(fnv1a64("a")).toBe(0xaf63dc4c8601ec8cn); // the published FNV-1a 64 test vector
  });

  it("differs between users", () => {
    const codes = new Set(Array.from({ length: 2000 }, (_, i) => referralCode(`user-${i}`)));
    expect(codes.size).toBe(2000);
  });

  it("links to sign-up with the code", () => {
    expect(referralLink("THU-ABC12345", "https://thumela.co.za")).toBe("https://thumela.co.za/signup?ref=THU-ABC12345");
  });
});
