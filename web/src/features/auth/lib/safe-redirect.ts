export const DEFAULT_SIGNED_IN_PATH = "/dashboard";

const NOT_A_DESTINATION = ["/login", "/logout", "/signup", "/otp-verification"];

/**
 * Where to go after signing in: the in-app path the visitor asked for, or the dashboard.
 * Anything that could leave the site (absolute URLs, protocol-relative //host, backslashes)
 * or loop back to an auth screen is ignored.
 */
export function safeRedirect(target: string | null | undefined): string {
  if (!target || !target.startsWith("/") || target.startsWith("//") || target.includes("\\")) {
    return DEFAULT_SIGNED_IN_PATH;
  }
  const path = target.split(/[?#]/)[0];
  return NOT_A_DESTINATION.includes(path) ? DEFAULT_SIGNED_IN_PATH : target;
}

/** The login URL that brings the visitor back to `path` afterwards. */
export function loginPathFor(path: string): string {
  return `/login?redirect=${encodeURIComponent(path)}`;
}
