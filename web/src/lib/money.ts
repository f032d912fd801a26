/**
 * Money is carried as integer cents (protobuf int64 → bigint) and shown in rand with the
 * prefix R and always 2 decimals, grouped as en-ZA does.
 */
const randFormat = new Intl.NumberFormat("en-ZA", {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

type Cents = bigint | number;

function toBigInt(cents: Cents): bigint {
  if (typeof cents === "bigint") return cents;
  if (!Number.isInteger(cents)) throw new RangeError(`cents must be an integer, got ${cents}`);
  return BigInt(cents);
}

/** The exact decimal text of an amount, e.g. 123456n → "1234.56"; for URLs and inputs. */
export function centsToDecimal(cents: Cents): string {
  const value = toBigInt(cents);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const rand = abs / 100n;
  const rest = (abs % 100n).toString().padStart(2, "0");
  return `${negative ? "-" : ""}${rand}.${rest}`;
}

/** "R1 234,56" for 123456 cents; negative amounts read "-R…". */
export function formatMoney(cents: Cents): string {
  const decimal = centsToDecimal(cents);
  if (decimal.startsWith("-")) {
    return `-R${randFormat.format(decimal.slice(1) as `${number}`)}`;
  }
  return `R${randFormat.format(decimal as `${number}`)}`;
}

/** An amount with an explicit direction, as in transaction lists: "-R50,00" or "+R50,00". */
export function formatSignedMoney(cents: Cents, direction: "out" | "in"): string {
  const value = toBigInt(cents);
  const abs = value < 0n ? -value : value;
  return `${direction === "out" ? "-" : "+"}${formatMoney(abs)}`;
}

/** A thousands separator typed or pasted: a space, en-ZA's no-break space, a narrow one. */
const SPACE = "[ \\u00a0\\u202f]";

/**
 * Whole rand plain ("1500") or grouped in threes by spaces ("1 500", "1 500 000", as en-ZA
 * writes it), then a dot decimal ("1 500.50", "150.", as before) or a comma decimal of 1 or 2
 * digits ("150,5", "1 500,50", ",75").
 */
const SPACED_AMOUNT = new RegExp(`^(\\d*|[1-9]\\d{0,2}(?:${SPACE}\\d{3})+)(?:\\.(\\d{0,2})|,(\\d{1,2}))?$`, "u");

/** Whole rand grouped in threes by commas ("1,500", "12,000"), then only a dot decimal. */
const COMMA_GROUPED_AMOUNT = /^([1-9]\d{0,2}(?:,\d{3})+)(?:\.(\d{0,2}))?$/u;

/**
 * The rand sign before an amount, as formatMoney writes it ("R150,00") or as people type it
 * ("r150", "R 150"): an R or r, then any spaces.
 */
const RAND_SIGN = new RegExp(`^[Rr]${SPACE}*`, "u");

/** text trimmed and without the rand sign before it ("R150" → "150"). */
export function withoutRandSign(text: string): string {
  return text.trim().replace(RAND_SIGN, "");
}

/**
 * Rand text as typed or passed in a URL → integer cents, without going through a float: the
 * digits are read as text on each side of the decimal separator. Accepted, each with or without
 * the rand sign before it ("R150", "r150", "R 1 500,00", as the page writes amounts):
 * - "150", "150.5", "150.50", ".75", "150." (a dot decimal, at most 2 digits);
 * - thousands grouped in threes by spaces, no-break spaces included: "1 500", "1 500.50";
 * - thousands grouped in threes by commas: "1,500", "12,000", "1,500.50";
 * - a single comma as the decimal separator when 1 or 2 digits end the text: "150,5",
 *   "150,50", "1 500,50" (a comma and 3 digits is a thousands group: "1,500" is R1 500).
 * Anything else → undefined: empty, negative, more than 2 decimals ("1.234"), groups not in
 * threes ("15 00", "1,50,0"), a group after a leading 0 ("0,500"), both separators as commas
 * ("1,500,50"), space groups with a comma group ("1 500,000"), dot thousands ("1.500,50"),
 * exponents, letters, an R alone or after the amount ("150R"), a sign before the R ("-R50").
 */
export function parseRandToCents(text: string): bigint | undefined {
  const trimmed = withoutRandSign(text);
  const match = SPACED_AMOUNT.exec(trimmed) ?? COMMA_GROUPED_AMOUNT.exec(trimmed);
  if (!match) return undefined;
  const [, grouped = "", dotFraction, commaFraction] = match;
  const whole = grouped.replace(/\D/gu, "");
  const fraction = dotFraction ?? commaFraction ?? "";
  if (whole === "" && fraction === "") return undefined;
  return BigInt(whole || "0") * 100n + BigInt(fraction.padEnd(2, "0"));
}

/**
 * Why typed rand text is not an amount to send, in two kinds: "notAboveZero" when it is missing
 * ("", "R") or reads as zero or less ("0", "R0,00", "-50", "-R50"), "unreadable" when it cannot
 * be read as rand at all ("abc", "1.234", "15 00", "150R"); undefined for an amount above zero.
 */
export function randAmountIssue(text: string): "notAboveZero" | "unreadable" | undefined {
  const trimmed = text.trim();
  // Nothing typed, or only the rand sign: the amount is missing.
  if (withoutRandSign(trimmed) === "") return "notAboveZero";
  const cents = parseRandToCents(trimmed);
  if (cents !== undefined) return cents > 0n ? undefined : "notAboveZero";
  // A minus (or the minus sign) before something that reads as rand is an amount below zero.
  const negative = /^[-\u2212]/u.test(trimmed) && parseRandToCents(trimmed.slice(1)) !== undefined;
  return negative ? "notAboveZero" : "unreadable";
}
