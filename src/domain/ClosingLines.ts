import { Duration } from "effect"
import type { EventStatus, Odd, OddsMarket } from "./Sports.ts"
import type { ChangeRecord, ClosingChange, ClosingSource, EventRecord, MarketRecord } from "./SportsChanges.ts"

/**
 * Closing lines: the last pre-match odds of each market of an event, kept once when it goes live. The change
 * recorder sees the kick-off (an event's status moving to live) and keeps the pre-match markets the log holds for it;
 * where it holds none (an event already live when first seen, or one whose pre-match odds nobody read), the provider
 * is asked for its last pre-match odds afterwards. Pure.
 */

/** One market of a closing line. */
export interface ClosingMarket {
  readonly key: string
  readonly name: string
  readonly odds: ReadonlyArray<Odd>
}

/** An event's closing line. Times in epoch millis. */
export interface ClosingLine {
  readonly eventId: string
  readonly sportId: number
  readonly leagueId: string
  readonly source: ClosingSource
  /** The kick-off as the service knows it (see kickOffAt). */
  readonly closedAt: number
  /** The provider's time for the newest of the prices: its quote time where it gives one, else when it answered. */
  readonly quotedAt: number
  readonly markets: ReadonlyArray<ClosingMarket>
}

/** An event whose line is to be asked of the provider; `attempts` counts the asks made so far. */
export interface ClosingAsk {
  readonly eventId: string
  readonly sportId: number
  readonly leagueId: string
  readonly closedAt: number
  readonly attempts: number
}

/** How long a closing line is kept after its kick-off: older ones are pruned (daily). */
export const closingLinesKeptFor = Duration.days(30)

/** The most asks of one event: past them (each failed, with the backoff between), the line is given up. */
export const maxAskAttempts = 6

const preMatch: EventStatus = "scheduled"
const started: ReadonlyArray<EventStatus> = ["live", "final"]

/**
 * Whether a refresh saw the event kick off: first seen live, or moved from pre-match to live (or straight to final,
 * as a competition without live scores does). Nothing else: an event first seen final is long past its close.
 */
export const kickedOff = (previous: EventRecord | undefined, current: EventRecord): boolean =>
  current.active && (previous === undefined
    ? current.status === "live"
    : previous.status === preMatch && (started as ReadonlyArray<string>).includes(current.status))

/** The events of a refresh's records that kicked off, against what the log held of them. */
export const kickOffs = (
  previous: ReadonlyMap<string, EventRecord>,
  records: ReadonlyArray<EventRecord>
): ReadonlyArray<EventRecord> => records.filter((record) => kickedOff(previous.get(record.eventId), record))

/** The kick-off as the service knows it: the event's start time, or when it saw it in play if that came first. */
export const kickOffAt = (event: EventRecord, seenAt: number) => Math.min(event.startsAt, seenAt)

/** Markets in the order of their keys, numbers by value ("1_2" before "1_10", "5" before "38"). */
const keyOrder = new Intl.Collator("en", { numeric: true })
const byKey = (markets: ReadonlyArray<ClosingMarket>) => [...markets].sort((a, b) => keyOrder.compare(a.key, b.key))

/**
 * What the kick-offs close: a line for each event the log holds pre-match markets of (every one but those the
 * provider withdrew; a stale one still has the last prices seen), and an ask of the provider for the others.
 */
export const closingsAtKickOff = (options: {
  readonly kickOffs: ReadonlyArray<EventRecord>
  readonly held: ReadonlyArray<MarketRecord>
  readonly seenAt: number
}): { readonly lines: ReadonlyArray<ClosingLine>; readonly asks: ReadonlyArray<ClosingAsk> } => {
  const preMatchOf = new Map<string, Array<MarketRecord>>()
  for (const market of options.held) {
    if (market.inPlay || market.reason === "withdrawn") continue
    preMatchOf.set(market.eventId, [...(preMatchOf.get(market.eventId) ?? []), market])
  }
  const lines: Array<ClosingLine> = []
  const asks: Array<ClosingAsk> = []
  for (const event of options.kickOffs) {
    const closedAt = kickOffAt(event, options.seenAt)
    const place = { eventId: event.eventId, sportId: event.sportId, leagueId: event.leagueId, closedAt }
    const markets = preMatchOf.get(event.eventId)
    if (markets === undefined) {
      asks.push({ ...place, attempts: 0 })
      continue
    }
    lines.push({
      ...place,
      source: "kick_off",
      quotedAt: Math.max(...markets.map((market) => market.quotedAt ?? market.answeredAt)),
      markets: byKey(markets.map(({ key, name, odds }) => ({ key, name, odds })))
    })
  }
  return { lines, asks }
}

/** The line the provider's pre-match odds (answered at `answeredAt`) give an ask; none when it has no markets. */
export const closingFromProvider = (
  ask: ClosingAsk,
  markets: ReadonlyArray<OddsMarket>,
  answeredAt: number
): ClosingLine | undefined =>
  markets.length === 0 ? undefined : {
    eventId: ask.eventId,
    sportId: ask.sportId,
    leagueId: ask.leagueId,
    source: "provider",
    closedAt: ask.closedAt,
    quotedAt: Math.max(...markets.map((market) => market.quotedAt ?? answeredAt)),
    markets: byKey(markets.map(({ key, name, odds }) => ({ key, name, odds })))
  }

/**
 * When an ask that failed (`attempts` made so far) is made again: a minute after the first, doubling (1, 2, 4, 8 and
 * 16 minutes); none past maxAskAttempts.
 */
export const askAgainAfter = (attempts: number): Duration.Duration | undefined =>
  attempts >= maxAskAttempts ? undefined : Duration.minutes(2 ** Math.max(0, attempts - 1))

const iso = (millis: number) => new Date(millis).toISOString()

/** A closing line as the stream sends it (`seenAt`: when the service kept it). */
export const closingChange = (line: ClosingLine, seenAt: number): ChangeRecord => ({
  kind: "closing",
  eventId: line.eventId,
  sportId: line.sportId,
  leagueId: line.leagueId,
  data: JSON.stringify(
    {
      event_id: line.eventId,
      sport_id: line.sportId,
      league_id: line.leagueId,
      closed_at: iso(line.closedAt),
      source: line.source,
      markets: line.markets,
      updated_at: iso(line.quotedAt),
      seen_at: iso(seenAt)
    } satisfies ClosingChange
  )
})
