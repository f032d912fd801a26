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

/**
 * Rand text as typed or passed in a URL ("150", "150.5", "150.50", ".75") → integer cents,
 * without going through a float: the text is split on the dot. Anything else (empty, negative,
 * more than 2 decimals, exponents, letters) → undefined.
 */
export function parseRandToCents(text: string): bigint | undefined {
  const trimmed = text.trim();
  const match = /^(\d*)(?:\.(\d{0,2}))?$/.exec(trimmed);
  if (!match) return undefined;
  const [, whole = "", fraction = ""] = match;
  if (whole === "" && fraction === "") return undefined;
  return BigInt(whole || "0") * 100n + BigInt(fraction.padEnd(2, "0"));
}
