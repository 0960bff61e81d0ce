import { Result } from "effect"
import type { Currency } from "./Currency.ts"
import type { Minor } from "./Money.ts"

/**
 * Amounts some aggregators write as integers with a fixed number of implied decimals, whatever the currency: Hub88's
 * `amount` and `balance` are the amount times 100000 (5 places: "$3.56 is 356000"). Converting between that and a
 * currency's minor units is exact or refused, never rounded:
 * - a currency with fewer places than the implied ones (BRL 2, JPY 0, KWD 3) reads an integer that is a whole number
 *   of its minor units; one finer (1 in BRL, a thousandth of a centavo) is refused;
 * - a currency with more places (BTC 8, USDT 6, ETH 18) cannot be expressed at all: most of its amounts have no exact
 *   integer, and a balance that has none could not be reported, so the currency is refused as a whole rather than
 *   only its odd amounts.
 */
export type ImpliedDecimalsRefusal =
  /** The integer is not a whole number of the currency's minor units. */
  | "FinerThanMinorUnit"
  /** The currency has more decimal places than the implied ones. */
  | "CurrencyTooFine"

/** Hub88's implied decimal places: its integers are the amount times 10^5. */
export const hub88ImpliedDecimals = 5

/** How many implied units make one minor unit of the currency, or undefined when it has more places than `places`. */
const unitsPerMinor = (currency: Currency, places: number): bigint | undefined =>
  currency.exponent > places ? undefined : 10n ** BigInt(places - currency.exponent)

/** Whether a currency's every amount has an exact integer with `places` implied decimals. */
export const expressibleWithImpliedDecimals = (currency: Currency, places: number = hub88ImpliedDecimals): boolean =>
  unitsPerMinor(currency, places) !== undefined

/** `1550n` BRL centavos -> `1550000n` (15.50 × 10^5); a currency finer than `places` is refused. */
export const impliedOfMinor = (
  minor: Minor,
  currency: Currency,
  places: number = hub88ImpliedDecimals
): Result.Result<bigint, ImpliedDecimalsRefusal> => {
  const factor = unitsPerMinor(currency, places)
  return factor === undefined ? Result.fail("CurrencyTooFine") : Result.succeed(minor * factor)
}

/**
 * `1550000n` in BRL -> `1550n` centavos, exactly; `1550001n` is refused (a hundred-thousandth of a real is no number
 * of centavos), as is any integer in a currency finer than `places`. The sign is kept.
 */
export const minorOfImplied = (
  implied: bigint,
  currency: Currency,
  places: number = hub88ImpliedDecimals
): Result.Result<Minor, ImpliedDecimalsRefusal> => {
  const factor = unitsPerMinor(currency, places)
  if (factor === undefined) return Result.fail("CurrencyTooFine")
  return implied % factor === 0n ? Result.succeed(implied / factor) : Result.fail("FinerThanMinorUnit")
}
