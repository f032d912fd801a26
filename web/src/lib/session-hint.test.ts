import { afterEach, describe, expect, it } from "vitest";
import { setSessionHint } from "@/test/render-app";
import { hasSessionHint } from "./session-hint";

describe("hasSessionHint", () => {
  afterEach(() => setSessionHint(false));

  it.each([
    ["no cookies", "", false],
    ["other cookies only", "theme=dark; thumela_device=abc", false],
    ["the hint", "thumela_signed_in=1", true],
    ["the hint among others", "theme=dark; thumela_signed_in=1; lang=en", true],
    ["the hint behind https (__Host-)", "__Host-thumela_signed_in=1", true],
    ["a cookie whose name only contains the hint's", "not_thumela_signed_in=1; thumela_signed_in_x=1", false],
    ["a value that mentions the hint", "note=thumela_signed_in", false],
  ])("%s → %s", (_, cookies, expected) => {
    expect(hasSessionHint(cookies)).toBe(expected);
  });

  it("reads document.cookie by default, as the BFF's Set-Cookie leaves it", () => {
    expect(hasSessionHint()).toBe(false);
    setSessionHint(true);
    expect(hasSessionHint()).toBe(true);
    setSessionHint(false);
    expect(hasSessionHint()).toBe(false);
  });
});
