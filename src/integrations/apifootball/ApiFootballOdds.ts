import { Schema } from "effect"
import { type Odd, type OddsMarket, oddsValue } from "../../domain/Sports.ts"
import { Integer, Maybe, Text } from "./ApiFootballFields.ts"

/**
 * API-Football's two odds shapes (../shared/spec/api-football.md §6) and their mapping to the domain's markets:
 * pre-match (`/odds`: per fixture, per bookmaker, per bet) and live (`/odds/live`: per fixture, per bet, no
 * bookmaker level). Bet ids differ between the two catalogues, so a market's key means nothing across them. A price
 * is kept only as a finite decimal above 1 (the domain's rule, `oddsValue`); a market left with none is left out.
 */

/** A price as it comes: a decimal text ("1.50"), sometimes a number. */
const Price = Maybe(Schema.Union([Schema.String, Schema.Number]))

/** One outcome of a pre-match bet; `value` is usually a text, a number for some bets (exact goals: `4`). */
export const OddsValue = Schema.Struct({ value: Text, odd: Price })

export const Bet = Schema.Struct({ id: Text, name: Schema.String, values: Schema.Array(OddsValue) })

export const Bookmaker = Schema.Struct({ id: Integer, name: Maybe(Schema.String), bets: Schema.Array(Bet) })

/** One fixture's pre-match odds, by bookmaker. */
export const OddsItem = Schema.Struct({
  league: Maybe(Schema.Struct({ id: Text, name: Maybe(Schema.String), season: Maybe(Integer) })),
  fixture: Schema.Struct({ id: Text, timezone: Maybe(Schema.String), date: Maybe(Schema.String) }),
  update: Maybe(Schema.String),
  bookmakers: Schema.Array(Bookmaker)
})

export const OddsResponse = Schema.Array(OddsItem)

/** One outcome of a live bet: its line (`handicap`), whether it is the line to use (`main`), whether it is open. */
export const LiveOddsValue = Schema.Struct({
  value: Text,
  odd: Price,
  handicap: Maybe(Text),
  main: Maybe(Schema.Boolean),
  suspended: Maybe(Schema.Boolean)
})

export const LiveBet = Schema.Struct({ id: Text, name: Schema.String, values: Schema.Array(LiveOddsValue) })

/** One fixture's live odds: `status` tells whether bets are open (not blocked, and the match neither before nor after). */
export const LiveOddsItem = Schema.Struct({
  fixture: Schema.Struct({ id: Text }),
  league: Maybe(Schema.Struct({ id: Text, season: Maybe(Integer) })),
  status: Maybe(Schema.Struct({
    stopped: Maybe(Schema.Boolean),
    blocked: Maybe(Schema.Boolean),
    finished: Maybe(Schema.Boolean)
  })),
  update: Maybe(Schema.String),
  odds: Schema.Array(LiveBet)
})

export const LiveOddsResponse = Schema.Array(LiveOddsItem)

const quotedAtOf = (update: string | null | undefined): { quotedAt?: number } => {
  const quoted = Date.parse(update ?? "")
  return Number.isFinite(quoted) ? { quotedAt: quoted } : {}
}

const priced = (label: string, odd: string | number | null | undefined): ReadonlyArray<Odd> => {
  const value = oddsValue(odd)
  return value === undefined ? [] : [{ label, value }]
}

/** Markets in the order of their bet ids, as numbers ("2" before "10"). */
const byKey = (a: OddsMarket, b: OddsMarket) => Number(a.key) - Number(b.key) || a.key.localeCompare(b.key)

/**
 * The pre-match markets of one bookmaker: the one with `bookmakerId`, or, where no item has it, the first bookmaker
 * of the first item that has any. A market per bet (its key the bet's id); where several items quote the same bet,
 * the first is kept.
 */
export const toOdds = (response: typeof OddsResponse.Type, bookmakerId: number): ReadonlyArray<OddsMarket> => {
  const chosen = response.flatMap((item) =>
    item.bookmakers.filter((bookmaker) => bookmaker.id === bookmakerId).map((bookmaker) => ({ item, bookmaker }))
  )
  if (chosen.length === 0) {
    const item = response.find((candidate) => candidate.bookmakers.length > 0)
    if (item !== undefined) chosen.push({ item, bookmaker: item.bookmakers[0] })
  }
  const markets = new Map<string, OddsMarket>()
  for (const { bookmaker, item } of chosen) {
    for (const bet of bookmaker.bets) {
      const odds = bet.values.flatMap((value) => priced(value.value, value.odd))
      if (odds.length > 0 && !markets.has(bet.id)) {
        markets.set(bet.id, { key: bet.id, name: bet.name, odds, ...quotedAtOf(item.update) })
      }
    }
  }
  return [...markets.values()].sort(byKey)
}

const lineLabel = (value: typeof LiveOddsValue.Type) => {
  const handicap = value.handicap?.trim() ?? ""
  return handicap === "" ? value.value : `${value.value} ${handicap}`
}

/**
 * The outcomes of a live bet, one per label: where a label comes more than once, the one `main` names is the line
 * to use (the provider's rule), and with none named the label is left out. That is decided over every outcome,
 * suspended or not, so a suspended main line does not give way to another; then suspended outcomes are dropped.
 */
const liveOdds = (values: ReadonlyArray<typeof LiveOddsValue.Type>): ReadonlyArray<Odd> => {
  const byLabel = new Map<string, Array<typeof LiveOddsValue.Type>>()
  for (const value of values) {
    const label = lineLabel(value)
    byLabel.set(label, [...(byLabel.get(label) ?? []), value])
  }
  return [...byLabel].flatMap(([label, lines]) => {
    const line = lines.length === 1 ? lines[0] : lines.find((candidate) => candidate.main === true)
    return line === undefined || line.suspended === true ? [] : priced(label, line.odd)
  })
}

/**
 * The live markets of the first item: none while its bets are blocked or the match is not on (`finished`: not
 * started or over). A market per bet, its key the bet's id.
 */
export const toLiveOdds = (response: typeof LiveOddsResponse.Type): ReadonlyArray<OddsMarket> => {
  const item = response[0]
  if (item === undefined || item.status?.blocked === true || item.status?.finished === true) return []
  return item.odds.flatMap((bet) => {
    const odds = liveOdds(bet.values)
    return odds.length === 0 ? [] : [{ key: bet.id, name: bet.name, odds, ...quotedAtOf(item.update) }]
  }).sort(byKey)
}
