/**
 * The BFF's signed-in hint: a cookie that scripts can read, set and cleared together with the
 * HttpOnly session cookie (bff/internal/session/cookie.go; "__Host-" prefixed behind https).
 * It holds no secret and grants nothing: it only says that asking GetSession is worth a
 * request, so a visitor's pages make none (and log no 401). The server decides from the session
 * cookie alone; a hint that outlived its session costs one Unauthenticated answer, which clears
 * it. docs/decisions.md, "A signed-in hint cookie".
 */
export const SESSION_HINT_COOKIES = ["thumela_signed_in", "__Host-thumela_signed_in"] as const;

/** Whether the browser holds the signed-in hint (`cookies` is document.cookie's format). */
export function hasSessionHint(cookies: string = document.cookie): boolean {
  return cookies.split(";").some((pair) => {
    const name = pair.split("=", 1)[0].trim();
    return (SESSION_HINT_COOKIES as readonly string[]).includes(name);
  });
}
