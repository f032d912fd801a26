export const DEFAULT_SIGNED_IN_PATH = "/dashboard";

const NOT_A_DESTINATION = ["/login", "/logout", "/signup", "/otp-verification"];

/**
 * Control characters (C0, DEL, C1) and any whitespace. The URL parser drops tabs and newlines
 * and trims spaces, so "/\t/evil.example" would become "//evil.example", another host. An
 * in-app path from `loginPathFor` is already percent-encoded and never holds one.
 */
// eslint-disable-next-line no-control-regex
const CONTROL_OR_SPACE = /[\u0000-\u001f\u007f-\u009f\s]/u;

/**
 * Where to go after signing in: the in-app path the visitor asked for, or the dashboard.
 * Anything that could leave the site (absolute URLs, protocol-relative //host, backslashes,
 * control characters or whitespace) or loop back to an auth screen is ignored.
 */
export function safeRedirect(target: string | null | undefined): string {
  if (
    !target ||
    !target.startsWith("/") ||
    target.startsWith("//") ||
    target.includes("\\") ||
    CONTROL_OR_SPACE.test(target) ||
    !staysOnSite(target)
  ) {
    return DEFAULT_SIGNED_IN_PATH;
  }
  const path = target.split(/[?#]/)[0];
  return NOT_A_DESTINATION.includes(path) ? DEFAULT_SIGNED_IN_PATH : target;
}

/** The login URL that brings the visitor back to `path` afterwards. */
export function loginPathFor(path: string): string {
  return `/login?redirect=${encodeURIComponent(path)}`;
}

/** Whether the browser's URL parser resolves `target` to this site (a last check). */
function staysOnSite(target: string): boolean {
  const base = "https://thumela.invalid";
  try {
    return new URL(target, base).origin === base;
  } catch {
    return false;
  }
}
