import { describe, expect, it } from "vitest";
import { referralLink } from "./referral-link";

describe("referral link", () => {
  it("links to sign-up with the code", () => {
    expect(referralLink("THU-ABC12345", "https://thumela.co.za")).toBe("https://thumela.co.za/signup?ref=THU-ABC12345");
  });

  it("escapes what a code could carry into a URL", () => {
    expect(referralLink("THU-A&B=C", "https://thumela.co.za")).toBe("https://thumela.co.za/signup?ref=THU-A%26B%3DC");
  });
});
