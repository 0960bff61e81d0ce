/**
 * Odds formats as pure rules: each format worked out from the decimal's own text, against worked examples
 * (2.50 = +150 = 3/2 = 40%), the ends of the range (1.01, 100.0), prices below and above evens, prices that do not
 * reduce to a small fraction, and prices a double does not hold exactly.
 */
import { assert, describe, it } from "@effect/vitest"
import { americanOf, fractionalOf, marketsIn, oddsFormats, oddsIn, probabilityOf } from "../../src/domain/OddsFormat.ts"

/** Decimal, american, fractional, probability: one price in every format. */
const worked: ReadonlyArray<readonly [number, number, string, number]> = [
  [2.5, 150, "3/2", 0.4],
  [1.01, -10000, "1/100", 0.9901],
  [1.5, -200, "1/2", 0.6667],
  [100.0, 9900, "99/1", 0.01],
  [2.0, 100, "1/1", 0.5],
  [3.25, 225, "9/4", 0.3077],
  [2.1, 110, "11/10", 0.4762],
  [1.25, -400, "1/4", 0.8],
  [11, 1000, "10/1", 0.0909]
]

describe("odds formats", () => {
  it("worked examples: each price in american, fractional and probability", () => {
    for (const [decimal, american, fractional, probability] of worked) {
      assert.strictEqual(americanOf(decimal), american, `american of ${decimal}`)
      assert.strictEqual(fractionalOf(decimal), fractional, `fractional of ${decimal}`)
      assert.strictEqual(probabilityOf(decimal), probability, `probability of ${decimal}`)
    }
  })

  it("american: +100(d-1) from 2.00 up, -100/(d-1) below; one that is not whole is rounded to the nearest", () => {
    assert.strictEqual(americanOf(1.91), -110, "-109.89...")
    assert.strictEqual(americanOf(1.909), -110, "-110.01...")
    assert.strictEqual(americanOf(1.95), -105, "-105.26...")
    assert.strictEqual(americanOf(2.555), 156, "+155.5: halves away from zero")
    assert.strictEqual(americanOf(1.8), -125)
    assert.strictEqual(americanOf(1.999), -100, "-100.05...: just below evens stays a favourite's sign")
  })

  it("fractional: d-1 reduced; a price that does not reduce to a denominator up to 100 is the nearest that does", () => {
    assert.strictEqual(fractionalOf(2.37), "137/100", "reduces to exactly 100")
    assert.strictEqual(fractionalOf(1.833), "5/6", "833/1000 is nearest 5/6")
    assert.strictEqual(fractionalOf(1.909), "10/11", "909/1000 is nearest 10/11")
    assert.strictEqual(fractionalOf(1.333), "1/3", "333/1000 is nearest 1/3")
    assert.strictEqual(fractionalOf(4.333), "10/3")
    assert.strictEqual(fractionalOf(1.995), "1/1", "199/200 is nearer 1/1 than 98/99")
    // Not 0/1 (nearest of all to 1/1000): a fractional price is never nothing.
    assert.strictEqual(fractionalOf(1.001), "1/100")
  })

  it("works from the decimal's text, not the double nearest it", () => {
    // The double 2.1 is 2.100000000000000088817...; its text, 21/10, is the price.
    assert.strictEqual(fractionalOf(2.1), "11/10")
    assert.strictEqual(fractionalOf(Number("2.50")), "3/2")
    // A provider's arithmetic noise (3.3000000000000003) is still nearest 23/10, and american still whole.
    assert.strictEqual(fractionalOf(1.1 * 3), "23/10")
    assert.strictEqual(americanOf(1.1 * 3), 230)
    assert.strictEqual(probabilityOf(1.1 * 3), 0.303)
  })

  it("probability: the implied 1/d with the margin kept, to 4 places", () => {
    const book = [2.1, 3.25, 3.6].map(probabilityOf)
    assert.deepStrictEqual(book, [0.4762, 0.3077, 0.2778])
    assert.isAbove(book.reduce((sum, p) => sum + p, 0), 1, "not normalised: the bookmaker's margin stays")
  })

  it("every format: decimal as it is, the others as their rules write them", () => {
    assert.deepStrictEqual(oddsFormats.map((format) => oddsIn(format, 2.5)), [2.5, 150, "3/2", 0.4])
    const markets = [{ key: "1_1", name: "Full Time Result", odds: [{ label: "1", value: 2.5 }], quotedAt: 1 }]
    assert.strictEqual(marketsIn("decimal", markets), markets, "decimal is the markets themselves")
    assert.deepStrictEqual(marketsIn("fractional", markets), [{
      key: "1_1",
      name: "Full Time Result",
      odds: [{ label: "1", value: "3/2" }],
      quotedAt: 1
    }])
    assert.deepStrictEqual(markets[0].odds[0].value, 2.5, "the markets given are left as they were")
  })
})
