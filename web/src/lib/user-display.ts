/** What the top-bar badge needs to know about the signed-in person. */
export interface BadgeUser {
  firstName?: string;
  lastName?: string;
  email?: string;
}

function clean(value: string | undefined): string {
  return (value ?? "").trim();
}

function emailName(email: string | undefined): string {
  const at = clean(email).indexOf("@");
  return at === -1 ? clean(email) : clean(email).slice(0, at);
}

/** First + last name if both, else first name, else the e-mail before the @, else 'User'. */
export function displayName(user: BadgeUser): string {
  const first = clean(user.firstName);
  const last = clean(user.lastName);
  if (first && last) return `${first} ${last}`;
  if (first) return first;
  return emailName(user.email) || "User";
}

/**
 * The name a phone's top bar has room for: the first name, else what displayName falls back to
 * (the e-mail before the @, else 'User'). The full name stays in the badge's label and title.
 */
export function shortName(user: BadgeUser): string {
  return clean(user.firstName) || displayName(user);
}

/** Initials in the same order as the name, falling back to 'U'. */
export function initials(user: BadgeUser): string {
  const first = clean(user.firstName);
  const last = clean(user.lastName);
  const letter = (text: string) => (Array.from(text)[0] ?? "").toLocaleUpperCase("en-ZA");
  if (first && last) return letter(first) + letter(last);
  if (first) return letter(first);
  return letter(emailName(user.email)) || "U";
}
