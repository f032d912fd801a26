import { useSyncExternalStore } from "react";

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

/**
 * Whether the browser holds the signed-in hint, for the public pages' header and calls to
 * action: "Dashboard" instead of "Log In" and "Get Started". Read from the cookie at each
 * render, so the first paint is already right (no request, no loading state, nothing that
 * jumps for a visitor), and again when the tab comes back into view or is restored from the
 * back/forward cache, where a sign-in or sign-out in another tab may have changed it. A hint
 * that outlived its session still reads as signed in: its Dashboard link then goes to log in
 * (the guard's GetSession answers Unauthenticated, which clears the hint), as the hint's cost
 * always was (docs/decisions.md, "A signed-in hint cookie").
 */
export function useSignedInHint(): boolean {
  return useSyncExternalStore(subscribeToHintChecks, readHint, () => false);
}

const readHint = () => hasSessionHint();

/** The moments the hint may have changed without this page doing anything. */
function subscribeToHintChecks(changed: () => void): () => void {
  document.addEventListener("visibilitychange", changed);
  window.addEventListener("focus", changed);
  window.addEventListener("pageshow", changed);
  return () => {
    document.removeEventListener("visibilitychange", changed);
    window.removeEventListener("focus", changed);
    window.removeEventListener("pageshow", changed);
  };
}
