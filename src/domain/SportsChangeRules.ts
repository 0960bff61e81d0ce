import type { RefreshScope } from "./SportsCatalog.ts"
import { minuteOf, type Odd, winnerOf } from "./Sports.ts"
import { type ResultRecord, settleResult } from "./SportsLifecycle.ts"
import type {
  ChangeKind,
  ChangeRecord,
  EventChange,
  EventRecord,
  MarketChangeType,
  MarketRecord,
  OddsChange,
  OddsSighting,
  ResultChange,
  ScoreChange
} from "./SportsChanges.ts"

/**
 * The rules of the live sports change stream: from what the log last said of
 * an event or a market (SportsChanges.ts) and what a refresh or an odds read
 * sees now, what changed, as the stream sends it. Pure.
 */

const iso = (millis: number) => new Date(millis).toISOString()

// ---- events

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
    event.reason === null ? null : [event.reason.code, event.reason.text],
    event.active,
    event.score,
    event.minute
  ])

const sameFacts = (a: EventRecord, b: EventRecord) => eventFacts(a) === eventFacts(b)

/** A final score, "2-1", as a result; anything else is no result. */
const finalScore = (score: string | null) => {
  const match = /^(\d+)-(\d+)$/.exec(score ?? "")
  if (match === null) return undefined
  const [homeScore, awayScore] = [Number(match[1]), Number(match[2])]
  return { homeScore, awayScore, winner: winnerOf(homeScore, awayScore) }
}

/** Events still to come or in play: a full refresh that no longer lists one removes it. */
const isOpen = (event: EventRecord) => event.status === "scheduled" || event.status === "live"

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
      event.active && isOpen(event) &&
      scope.sportIds.includes(event.sportId) && !listed.has(event.eventId)
    ) {
      ids.push(event.eventId)
    }
  }
  return ids
}

/** A result record as the stream's result change carries it. */
const resultData = (record: ResultRecord) => ({
  home_score: record.homeScore,
  away_score: record.awayScore,
  winner: record.winner,
  final_at: iso(record.finalAt),
  corrected: record.correctedAt !== null,
  corrected_at: record.correctedAt === null ? null : iso(record.correctedAt),
  previous: record.previous === null ? null : {
    home_score: record.previous.homeScore,
    away_score: record.previous.awayScore,
    winner: record.previous.winner
  }
})

/**
 * What changed of one event, in the order the stream sends it: the event, its score, its result. `result` is the
 * service's record of its final result once this sighting is settled (none while it has no final score); `settled`
 * whether this sighting changed that record (first seen final, or corrected).
 */
const changesOfEvent = (
  previous: EventRecord | undefined,
  current: EventRecord,
  seenAt: number,
  outcome: { readonly result: ResultRecord | undefined; readonly settled: boolean }
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
    ...(previous.status !== current.status || !sameReason(previous, current) ? ["status" as const] : []),
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
      reason: current.reason,
      final_at: current.finalAt === null ? null : iso(current.finalAt),
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
  // Sent when the event turns final, when its final score moves, and when the service's record of the result
  // changes (a correction): always the record's result, the service's latest.
  const { result, settled } = outcome
  if (
    result !== undefined &&
    (settled || previous?.status !== "final" || previous.score !== current.score)
  ) {
    record("result", { ...head, ...resultData(result), ...age })
  }
  return changes
}

const sameReason = (a: EventRecord, b: EventRecord) =>
  a.reason?.code === b.reason?.code && a.reason?.text === b.reason?.text

/**
 * What a refresh changed: for each event it saw, against what the log last
 * said of it (an answer older than that is ignored: a cache may hand back an
 * earlier state than one already sent), and for each it covered and no
 * longer lists (`unlisted`), its removal. A final score is settled against
 * the service's record of results (`results`: first seen final, or a
 * correction). `records` are the events whose record changes, `settled` the
 * results whose record changes. On a provider's first refresh (`baseline`),
 * the records are written and nothing is sent: there was no stream of it before.
 */
export const eventChanges = (options: {
  readonly previous: ReadonlyMap<string, EventRecord>
  readonly observed: ReadonlyArray<EventRecord>
  readonly unlisted: ReadonlyArray<string>
  /** What the service holds of the results of the observed events (those it holds). */
  readonly results: ReadonlyMap<string, ResultRecord>
  readonly seenAt: number
  readonly baseline: boolean
}): {
  readonly changes: ReadonlyArray<ChangeRecord>
  readonly records: ReadonlyArray<EventRecord>
  readonly settled: ReadonlyArray<ResultRecord>
} => {
  const { baseline, previous, results, seenAt } = options
  const changes: Array<ChangeRecord> = []
  const records: Array<EventRecord> = []
  const settled: Array<ResultRecord> = []
  for (const observed of options.observed) {
    const before = previous.get(observed.eventId)
    if (before !== undefined && observed.answeredAt < before.answeredAt) continue
    // The facts the log holds, under a digest of other facts (a release that added one): kept again, nothing sent.
    if (before !== undefined && sameFacts(before, observed)) {
      records.push({ ...observed, finalAt: before.finalAt })
      continue
    }
    const held = results.get(observed.eventId)
    const final = observed.status === "final" ? finalScore(observed.score) : undefined
    const finalAt = observed.status !== "final"
      ? null
      : held?.finalAt ?? (before?.status === "final" ? before.finalAt : null) ?? seenAt
    const settling = final === undefined ? undefined : settleResult(
      held,
      { eventId: observed.eventId, result: final, answeredAt: observed.answeredAt },
      { seenAt, finalAt: finalAt ?? seenAt }
    )
    if (settling !== undefined) settled.push(settling)
    const current = { ...observed, finalAt }
    records.push(current)
    if (!baseline) {
      const result = final === undefined ? undefined : settling ?? held
      changes.push(...changesOfEvent(before, current, seenAt, { result, settled: settling !== undefined }))
    }
  }
  for (const eventId of options.unlisted) {
    const before = previous.get(eventId)
    if (before === undefined || !before.active) continue
    const removed = { ...before, active: false, answeredAt: seenAt }
    records.push(removed)
    if (!baseline) changes.push(...changesOfEvent(before, removed, seenAt, { result: undefined, settled: false }))
  }
  return { changes, records, settled }
}

// ---- odds

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
