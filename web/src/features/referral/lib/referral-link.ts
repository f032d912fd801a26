/**
 * The sign-up link a friend opens: /signup?ref=<code> on this site. The code is the one
 * GetCredit answers: identity makes and owns each user's code, so the web never derives one.
 */
export function referralLink(code: string, origin = window.location.origin): string {
  return `${origin}/signup?ref=${encodeURIComponent(code)}`;
}
