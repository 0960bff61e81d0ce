import { Schema, SchemaTransformation } from "effect"
import type { RefreshScope } from "./SportsCatalog.ts"
import { minuteOf, type Odd } from "./Sports.ts"

/**
 * The live sports change stream as the service speaks about it: the kinds of
 * change, each change's data, and the rules that tell, from what the log
 * last said and what a refresh or an odds read sees now, what changed. Pure.
 *
 * A change's data is kept in the log as the stream sends it (snake_case, ISO
 * instants): it is encoded once, when written, so a change sent to a
 * thousand streams is a thousand copies of one text, not a thousand
 * encodings. These schemas are that wire form; the contract (src/api/
 * SportsStream.ts) names them as the stream's events.
 */

export const changeKinds = ["event", "score", "odds", "result"] as const
export type ChangeKind = (typeof changeKinds)[number]

/** An instant on the wire: ISO 8601, UTC; a Date once decoded. */
const Instant = Schema.String.annotate({ description: "ISO 8601, UTC", examples: ["2026-11-22T19:02:10.000Z"] }).pipe(
  Schema.decodeTo(Schema.Date, SchemaTransformation.dateFromString)
)

/** What every change says of its event and of its own age. */
const about = {
  event_id: Schema.String,
  sport_id: Schema.Int,
  league_id: Schema.String,
  updated_at: Instant.annotate({
    description:
      "When the provider stated this: its own time for the data where it gives one (the quote time of odds), " +
      "else when it gave the answer (which a cache may have kept since)"
  }),
  seen_at: Instant.annotate({
    description: "When the service saw the change (the refresh or odds read that noticed it)"
  })
}

export const eventFields = ["created", "status", "starts_at", "active", "names"] as const

/** An event created, or its status, start time, listing or names changed. */
export const EventChange = Schema.Struct({
  ...about,
  league_name: Schema.String,
  home_name: Schema.String,
  away_name: Schema.String,
  starts_at: Instant,
  status: Schema.String.annotate({ description: "prematch, live, ended, postponed, cancelled or interrupted" }),
  active: Schema.Boolean.annotate({ description: "false once the provider stopped listing the event (removed)" }),
  changed: Schema.Array(Schema.Literals(eventFields)).annotate({
    description: "What changed: created, status, starts_at, active, names"
  })
}).annotate({ identifier: "SportsStreamEventChange" })

/** A score or a minute changed, in play. */
export const ScoreChange = Schema.Struct({
  ...about,
  status: Schema.String,
  score: Schema.String.annotate({ description: "home-away, as the live feed answers it" }),
  minute: Schema.Int.annotate({
    description: "The match clock where the sport has one; otherwise whole minutes since the start"
  })
}).annotate({ identifier: "SportsStreamScoreChange" })

export const suspensionReasons = ["stale", "withdrawn"] as const
export type SuspensionReason = (typeof suspensionReasons)[number]

export const marketChangeTypes = ["opened", "prices", "suspended", "reopened"] as const
export type MarketChangeType = (typeof marketChangeTypes)[number]

/** A market opened, its prices moved, it was suspended (stale data or withdrawn by the provider) or reopened. */
export const OddsChange = Schema.Struct({
  ...about,
  market_key: Schema.String.annotate({ description: "The provider's market key (e.g. 1_1)" }),
  market_name: Schema.String,
  in_play: Schema.Boolean.annotate({ description: "true: in-play odds (GET .../odds/live); false: pre-match odds" }),
  suspended: Schema.Boolean.annotate({ description: "true: do not offer these prices" }),
  reason: Schema.NullOr(Schema.Literals(suspensionReasons)).annotate({
    description:
      "Why it is suspended: stale (no fresh data for STREAM_STALE_AFTER) or withdrawn (the provider stopped quoting it)"
  }),
  changed: Schema.Literals(marketChangeTypes),
  odds: Schema.Array(Schema.Struct({ label: Schema.String, value: Schema.Finite }))
}).annotate({ identifier: "SportsStreamOddsChange" })

/** An event ended with a final score (or its final score was corrected). */
export const ResultChange = Schema.Struct({
  ...about,
  home_score: Schema.Int,
  away_score: Schema.Int,
  winner: Schema.Literals(["home", "away", "draw"])
}).annotate({ identifier: "SportsStreamResultChange" })

export type EventChange = typeof EventChange.Encoded
export type ScoreChange = typeof ScoreChange.Encoded
export type OddsChange = typeof OddsChange.Encoded
export type ResultChange = typeof ResultChange.Encoded

/** One row of the log, before it is given its position. */
export interface ChangeRecord {
  readonly kind: ChangeKind
  readonly eventId: string
  readonly sportId: number
  readonly leagueId: string
  /** The change's JSON, as the stream sends it. */
  readonly data: string
}

// ---- events

/** What the log knows of an event; also what a refresh sees of it. Times in epoch millis. */
export interface EventRecord {
  readonly eventId: string
  readonly sportId: number
  readonly leagueId: string
  readonly leagueName: string
  readonly homeName: string
  readonly awayName: string
  readonly startsAt: number
  readonly status: string
  readonly active: boolean
  readonly score: string | null
  readonly minute: number | null
  /** When the provider gave the answer this came from. */
  readonly answeredAt: number
}

const iso = (millis: number) => new Date(millis).toISOString()

/**
 * An event's facts as one string (all but when it was answered): equal strings, nothing to tell. The log
 * keeps a digest of it beside each event, so a refresh reads back only the events whose facts moved.
 */
export const eventFacts = (event: EventRecord): string =>
  JSON.stringify([
    event.sportId,
    event.leagueId,
    event.leagueName,
    event.homeName,
    event.awayName,
    event.startsAt,
    event.status,
    event.active,
    event.score,
    event.minute
  ])

const sameFacts = (a: EventRecord, b: EventRecord) => eventFacts(a) === eventFacts(b)

/** A final score, "2-1", as numbers; anything else is no result. */
const finalScore = (score: string | null) => {
  const match = /^(\d+)-(\d+)$/.exec(score ?? "")
  return match === null ? undefined : { home: Number(match[1]), away: Number(match[2]) }
}

/**
 * The events a refresh covered and no longer lists: open, active events of
 * its sports, when it read every list of them (a full refresh of events).
 * The catalog marks the same ones inactive (SportsCatalogPublishSql).
 */
export const unlistedEvents = (
  previous: Iterable<EventRecord>,
  listed: ReadonlySet<string>,
  scope: RefreshScope
): ReadonlyArray<string> => {
  if (scope.liveOnly || !scope.events) return []
  const ids: Array<string> = []
  for (const event of previous) {
    if (
      event.active && (event.status === "prematch" || event.status === "live") &&
      scope.sportIds.includes(event.sportId) && !listed.has(event.eventId)
    ) {
      ids.push(event.eventId)
    }
  }
  return ids
}

/** What changed of one event, in the order the stream sends it: the event, its score, its result. */
const changesOfEvent = (
  previous: EventRecord | undefined,
  current: EventRecord,
  seenAt: number
): ReadonlyArray<ChangeRecord> => {
  const changes: Array<ChangeRecord> = []
  const head = { event_id: current.eventId, sport_id: current.sportId, league_id: current.leagueId }
  const age = { updated_at: iso(current.answeredAt), seen_at: iso(seenAt) }
  const record = (kind: ChangeKind, data: EventChange | ScoreChange | ResultChange) =>
    changes.push({
      kind,
      eventId: current.eventId,
      sportId: current.sportId,
      leagueId: current.leagueId,
      data: JSON.stringify(data)
    })

  const changed = previous === undefined ? ["created" as const] : [
    ...(previous.status !== current.status ? ["status" as const] : []),
    ...(previous.startsAt !== current.startsAt ? ["starts_at" as const] : []),
    ...(previous.active !== current.active ? ["active" as const] : []),
    ...(previous.leagueName !== current.leagueName || previous.homeName !== current.homeName ||
        previous.awayName !== current.awayName
      ? ["names" as const]
      : [])
  ]
  if (changed.length > 0) {
    record("event", {
      ...head,
      league_name: current.leagueName,
      home_name: current.homeName,
      away_name: current.awayName,
      starts_at: iso(current.startsAt),
      status: current.status,
      active: current.active,
      changed,
      ...age
    })
  }
  const scoreMoved = previous === undefined
    ? current.score !== null
    : previous.score !== current.score || previous.minute !== current.minute
  if (current.status === "live" && scoreMoved) {
    record("score", {
      ...head,
      status: current.status,
      score: current.score ?? "",
      minute: minuteOf({ minute: current.minute, startsAt: new Date(current.startsAt) }, seenAt),
      ...age
    })
  }
  const final = finalScore(current.score)
  if (
    current.status === "ended" && final !== undefined &&
    (previous?.status !== "ended" || previous.score !== current.score)
  ) {
    record("result", {
      ...head,
      home_score: final.home,
      away_score: final.away,
      winner: final.home > final.away ? "home" : final.home < final.away ? "away" : "draw",
      ...age
    })
  }
  return changes
}

/**
 * What a refresh changed: for each event it saw, against what the log last
 * said of it (an answer older than that is ignored: a cache may hand back an
 * earlier state than one already sent), and for each it covered and no
 * longer lists (`unlisted`), its removal. `records` are the events whose
 * record changes. On a provider's first refresh (`baseline`), the records are
 * written and nothing is sent: there was no stream of it before.
 */
export const eventChanges = (options: {
  readonly previous: ReadonlyMap<string, EventRecord>
  readonly observed: ReadonlyArray<EventRecord>
  readonly unlisted: ReadonlyArray<string>
  readonly seenAt: number
  readonly baseline: boolean
}): { readonly changes: ReadonlyArray<ChangeRecord>; readonly records: ReadonlyArray<EventRecord> } => {
  const { baseline, previous, seenAt } = options
  const changes: Array<ChangeRecord> = []
  const records: Array<EventRecord> = []
  for (const current of options.observed) {
    const before = previous.get(current.eventId)
    if (before !== undefined && (current.answeredAt < before.answeredAt || sameFacts(before, current))) continue
    records.push(current)
    if (!baseline) changes.push(...changesOfEvent(before, current, seenAt))
  }
  for (const eventId of options.unlisted) {
    const before = previous.get(eventId)
    if (before === undefined || !before.active) continue
    const removed = { ...before, active: false, answeredAt: seenAt }
    records.push(removed)
    if (!baseline) changes.push(...changesOfEvent(before, removed, seenAt))
  }
  return { changes, records }
}

// ---- odds

/** What the log knows of a market (pre-match and in play are two markets). */
export interface MarketRecord {
  readonly eventId: string
  readonly inPlay: boolean
  readonly key: string
  readonly name: string
  readonly odds: ReadonlyArray<Odd>
  readonly suspended: boolean
  readonly reason: SuspensionReason | null
  /** The provider's own time for these prices, when it gives one. */
  readonly quotedAt: number | null
  /** When the provider last gave an answer carrying the market. */
  readonly answeredAt: number
}

/** An odds answer as read: one event's markets, pre-match or in play. */
export interface OddsSighting {
  readonly eventId: string
  readonly inPlay: boolean
  readonly markets: ReadonlyArray<{
    readonly key: string
    readonly name: string
    readonly odds: ReadonlyArray<Odd>
    readonly quotedAt: number | null
  }>
  readonly answeredAt: number
}

const sameOdds = (a: ReadonlyArray<Odd>, b: ReadonlyArray<Odd>) =>
  a.length === b.length && a.every((odd, i) => odd.label === b[i].label && odd.value === b[i].value)

/** One market's change, as the stream sends it. */
export const marketChange = (
  market: MarketRecord,
  event: { readonly sportId: number; readonly leagueId: string },
  changed: MarketChangeType,
  seenAt: number
): ChangeRecord => ({
  kind: "odds",
  eventId: market.eventId,
  sportId: event.sportId,
  leagueId: event.leagueId,
  data: JSON.stringify(
    {
      event_id: market.eventId,
      sport_id: event.sportId,
      league_id: event.leagueId,
      market_key: market.key,
      market_name: market.name,
      in_play: market.inPlay,
      suspended: market.suspended,
      reason: market.reason,
      changed,
      odds: market.odds,
      updated_at: iso(market.quotedAt ?? market.answeredAt),
      seen_at: iso(seenAt)
    } satisfies OddsChange
  )
})

/**
 * What an odds answer changed, against the markets the log holds for the
 * same event and phase: a new market opens, moved prices are sent, a
 * suspended market that fresh data carries again reopens, and a market the
 * answer no longer carries is suspended (withdrawn). Every market it carries
 * is confirmed (`records`), changed or not, so it does not go stale. An
 * answer already older than `staleAfter`, or older than what the log holds,
 * changes nothing: a stale price is never offered.
 */
export const oddsChanges = (options: {
  readonly previous: ReadonlyArray<MarketRecord>
  readonly sighting: OddsSighting
  readonly event: { readonly sportId: number; readonly leagueId: string }
  readonly seenAt: number
  readonly staleAfterMillis: number
}): { readonly changes: ReadonlyArray<ChangeRecord>; readonly records: ReadonlyArray<MarketRecord> } => {
  const { event, previous, seenAt, sighting } = options
  const newest = previous.reduce((latest, market) => Math.max(latest, market.answeredAt), -Infinity)
  if (seenAt - sighting.answeredAt > options.staleAfterMillis || sighting.answeredAt <= newest) {
    return { changes: [], records: [] }
  }
  const changes: Array<ChangeRecord> = []
  const records: Array<MarketRecord> = []
  const before = new Map(previous.map((market) => [market.key, market]))
  for (const market of sighting.markets) {
    const known = before.get(market.key)
    before.delete(market.key)
    const current: MarketRecord = {
      eventId: sighting.eventId,
      inPlay: sighting.inPlay,
      key: market.key,
      name: market.name,
      odds: market.odds,
      suspended: false,
      reason: null,
      quotedAt: market.quotedAt,
      answeredAt: sighting.answeredAt
    }
    records.push(current)
    const changed: MarketChangeType | undefined = known === undefined
      ? "opened"
      : known.suspended
      ? "reopened"
      : !sameOdds(known.odds, market.odds) || known.name !== market.name
      ? "prices"
      : undefined
    if (changed !== undefined) changes.push(marketChange(current, event, changed, seenAt))
  }
  for (const withdrawn of before.values()) {
    if (withdrawn.suspended) continue
    const suspended: MarketRecord = { ...withdrawn, suspended: true, reason: "withdrawn" }
    records.push(suspended)
    changes.push(marketChange(suspended, event, "suspended", seenAt))
  }
  return { changes, records }
}

/** Markets no answer has carried for STREAM_STALE_AFTER, suspended as stale. */
export const staleMarketChanges = (
  stale: ReadonlyArray<{ readonly market: MarketRecord; readonly sportId: number; readonly leagueId: string }>,
  seenAt: number
): { readonly changes: ReadonlyArray<ChangeRecord>; readonly records: ReadonlyArray<MarketRecord> } => {
  const records = stale.map(({ market }): MarketRecord => ({ ...market, suspended: true, reason: "stale" }))
  return {
    records,
    changes: records.map((market, i) => marketChange(market, stale[i], "suspended", seenAt))
  }
}
