import { Schema } from "effect"

/**
 * Odds in the format a partner's market reads them. Providers quote decimal odds (2.5: the stake back 2.5 times);
 * partners ask for `american` (+150), `fractional` (3/2) or the implied `probability` (0.4) instead. Each is worked
 * out from the decimal's own text, exactly (2.1 is 21/10, not the double nearest to it), and rounded once, as its
 * wire form says. Pure.
 */

export const oddsFormats = ["decimal", "american", "fractional", "probability"] as const
export type OddsFormat = (typeof oddsFormats)[number]

/** A price on the wire, in the format asked for: a number, or for `fractional` its text. */
export const OddsValue = Schema.Union([Schema.Finite, Schema.String]).annotate({
  description: "The price in the `odds_format` asked for: decimal 2.5 (default); american 150 or -200, a signed " +
    "whole number (rounded to the nearest); fractional \"3/2\", a string (reduced, or the nearest fraction with a " +
    "denominator up to 100); probability 0.4, the implied 1/decimal between 0 and 1 to 4 places, margin kept",
  examples: [2.5, 150, "3/2", 0.4]
})

/** What every answer is in unless the partner asks otherwise. */
export const defaultOddsFormat: OddsFormat = "decimal"

/** A positive fraction, reduced, in exact integers. */
interface Ratio {
  readonly numerator: bigint
  readonly denominator: bigint
}

const gcd = (a: bigint, b: bigint): bigint => {
  while (b !== 0n) [a, b] = [b, a % b]
  return a
}

const reduced = (numerator: bigint, denominator: bigint): Ratio => {
  const divisor = gcd(numerator, denominator)
  return { numerator: numerator / divisor, denominator: denominator / divisor }
}

/**
 * A decimal price as the exact fraction its text writes: JavaScript writes a number as the shortest text that reads
 * back to it ("2.1", "3.25", "1e+21"), which is the provider's own figure.
 */
const exactly = (decimal: number): Ratio => {
  const [, whole, fraction = "", exponent = "0"] = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(decimal))!
  const scale = Number(exponent) - fraction.length
  const digits = BigInt(whole + fraction)
  return scale >= 0 ? reduced(digits * 10n ** BigInt(scale), 1n) : reduced(digits, 10n ** BigInt(-scale))
}

/** `numerator / denominator` rounded to a whole number, halves away from zero. */
const roundedDivision = (numerator: bigint, denominator: bigint): bigint => {
  const negative = (numerator < 0n) !== (denominator < 0n)
  const [n, d] = [numerator < 0n ? -numerator : numerator, denominator < 0n ? -denominator : denominator]
  const rounded = (2n * n + d) / (2n * d)
  return negative ? -rounded : rounded
}

/** The largest denominator a fractional price is written with. */
export const maxFractionalDenominator = 100

/**
 * The fraction nearest to `ratio` whose denominator is at most `max` (continued fractions: the last convergent and
 * the best semiconvergent within the bound, whichever is closer; on a tie, the convergent). Never 0: below 1/max it
 * is 1/max.
 */
const nearestFraction = (ratio: Ratio, max: bigint): Ratio => {
  if (ratio.denominator <= max) return ratio
  let [p0, q0, p1, q1] = [0n, 1n, 1n, 0n]
  let [n, d] = [ratio.numerator, ratio.denominator]
  while (true) {
    const a = n / d
    const q2 = q0 + a * q1
    if (q2 > max) break
    ;[p0, q0, p1, q1] = [p1, q1, p0 + a * p1, q2]
    ;[n, d] = [d, n - a * d]
  }
  const k = (max - q0) / q1
  const semi = { numerator: p0 + k * p1, denominator: q0 + k * q1 }
  const convergent = { numerator: p1, denominator: q1 }
  // |x - a/b| compared exactly: |x.n * b - a * x.d| / (x.d * b).
  const distance = (to: Ratio) => {
    const gap = ratio.numerator * to.denominator - to.numerator * ratio.denominator
    return { gap: gap < 0n ? -gap : gap, over: ratio.denominator * to.denominator }
  }
  const [toSemi, toConvergent] = [distance(semi), distance(convergent)]
  const nearest = toConvergent.gap * toSemi.over <= toSemi.gap * toConvergent.over ? convergent : semi
  return nearest.numerator === 0n
    ? { numerator: 1n, denominator: max }
    : reduced(nearest.numerator, nearest.denominator)
}

/**
 * American odds: from 2.00 up, the win on a stake of 100 (+100(d-1)); below, the stake that wins 100
 * (-100/(d-1)). A signed whole number, as US books quote them: 150 is +150, -110 is -110; a value that is not whole is
 * rounded to the nearest (halves away from zero): 1.91 is -109.89..., so -110.
 */
export const americanOf = (decimal: number): number => {
  const { denominator, numerator } = exactly(decimal)
  const profit = { numerator: numerator - denominator, denominator }
  return Number(
    numerator >= 2n * denominator
      ? roundedDivision(100n * profit.numerator, profit.denominator)
      : roundedDivision(-100n * profit.denominator, profit.numerator)
  )
}

/**
 * Fractional odds: the profit on a stake of 1 (d-1) as "numerator/denominator", reduced (2.5 is "3/2", 3.0 "2/1");
 * one that does not reduce to a denominator of at most 100 is the nearest fraction that does (1.333 is "1/3").
 */
export const fractionalOf = (decimal: number): string => {
  const { denominator, numerator } = exactly(decimal)
  const profit = nearestFraction(reduced(numerator - denominator, denominator), BigInt(maxFractionalDenominator))
  return `${profit.numerator}/${profit.denominator}`
}

/** The decimal places a probability is written with. */
export const probabilityPlaces = 4

/**
 * The implied probability 1/d, the bookmaker's margin kept (a market's probabilities add up to more than 1), as a
 * number between 0 and 1 rounded to 4 decimal places: 2.5 is 0.4, 3.25 is 0.3077.
 */
export const probabilityOf = (decimal: number): number => {
  const { denominator, numerator } = exactly(decimal)
  const scale = 10n ** BigInt(probabilityPlaces)
  return Number(roundedDivision(denominator * scale, numerator)) / Number(scale)
}

/** A decimal price in `format`: a number, or for `fractional` its text. */
export const oddsIn = (format: OddsFormat, decimal: number): number | string => {
  switch (format) {
    case "decimal":
      return decimal
    case "american":
      return americanOf(decimal)
    case "fractional":
      return fractionalOf(decimal)
    case "probability":
      return probabilityOf(decimal)
  }
}

/** An outcome whose `value` is a decimal price, written in another format. */
export type Priced<O extends { readonly value: number }> = Omit<O, "value"> & { readonly value: number | string }

/** A market whose outcomes' decimal prices are written in another format. */
export type InFormat<M extends { readonly odds: ReadonlyArray<{ readonly value: number }> }> =
  & Omit<M, "odds">
  & { readonly odds: ReadonlyArray<Priced<M["odds"][number]>> }

/** Markets whose outcomes carry decimal prices, each price in `format` (the same markets when it is decimal). */
export const marketsIn = <M extends { readonly odds: ReadonlyArray<{ readonly value: number }> }>(
  format: OddsFormat,
  markets: ReadonlyArray<M>
): ReadonlyArray<InFormat<M>> =>
  // Only `value` changes, and a number is one of what InFormat allows: the casts say so of a generic M.
  format === "decimal" ? markets as ReadonlyArray<InFormat<M>> : markets.map((market) =>
    ({
      ...market,
      odds: market.odds.map((odd) => ({ ...odd, value: oddsIn(format, odd.value) }))
    }) as unknown as InFormat<M>
  )
