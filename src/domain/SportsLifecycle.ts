import { Duration } from "effect"
import type { EventResult, FinalScore, SettledResult, Settlement, SportsEvent, StatusReason } from "./Sports.ts"

/**
 * An event's life cycle beyond what the provider says: an event stuck in play is not final, and a final result
 * that changes is a correction the service records (when it first saw the event final, when it was corrected, and
 * what it replaced). Each provider's codes are mapped in its integration. Pure.
 */

// ---- stuck in play

/** The service's reason for an event it no longer takes as in play (see `overdue`). */
export const overdueReason = (after: Duration.Duration): StatusReason => ({
  code: "overdue",
  text: `Still in play by the provider's account ${
    Duration.format(after)
  } after kick-off: not final until the provider says so`
})

/**
 * An event the provider still calls in play more than `after` past its kick-off (a feed that never sent the final
 * whistle) is `suspended`, with the reason `overdue`: never `final`, which only the provider says. Any other event is
 * as the provider gave it (the same object).
 */
export const overdue = (event: SportsEvent, now: number, after: Duration.Duration): SportsEvent =>
  event.status === "live" && now - event.startsAt.getTime() > Duration.toMillis(after)
    ? { ...event, status: "suspended", reason: overdueReason(after) }
    : event

// ---- final results and their corrections

/** What the service keeps of an event's final result (sql/0042's sports_results). Times in epoch millis. */
export interface ResultRecord extends FinalScore {
  readonly eventId: string
  /** When the service first saw the event final. */
  readonly finalAt: number
  /** When the result last changed after it was final; null: never. */
  readonly correctedAt: number | null
  /** The result the last correction replaced. */
  readonly previous: FinalScore | null
  /** When the provider gave the answer this result came from: an older answer never undoes it. */
  readonly answeredAt: number
}

const sameScore = (a: FinalScore, b: FinalScore) => a.homeScore === b.homeScore && a.awayScore === b.awayScore

const scoreOf = (result: FinalScore): FinalScore => ({
  homeScore: result.homeScore,
  awayScore: result.awayScore,
  winner: result.winner
})

/**
 * A final result seen (`observed`, from an answer the provider gave at `answeredAt`) against what the service holds
 * of it: the record to keep, or undefined when nothing is new. First seen: a record final at `finalAt`. A different
 * score from a newer answer: a correction at `seenAt`, keeping the result it replaces. The same score (a winner the
 * provider now flags aside), or an older answer: nothing.
 */
export const settleResult = (
  held: ResultRecord | undefined,
  observed: { readonly eventId: string; readonly result: FinalScore; readonly answeredAt: number },
  at: { readonly seenAt: number; readonly finalAt: number }
): ResultRecord | undefined => {
  const { answeredAt, eventId, result } = observed
  if (held === undefined) {
    return { eventId, ...scoreOf(result), finalAt: at.finalAt, correctedAt: null, previous: null, answeredAt }
  }
  if (answeredAt < held.answeredAt || sameScore(held, result)) return undefined
  return { ...held, ...scoreOf(result), correctedAt: at.seenAt, previous: scoreOf(held), answeredAt }
}

export const settlementOf = (record: ResultRecord): Settlement => ({
  finalAt: new Date(record.finalAt),
  correctedAt: record.correctedAt === null ? null : new Date(record.correctedAt),
  previous: record.previous
})

/**
 * The result the endpoint answers: the provider's, with the service's record of it; where the record holds another
 * score (a newer answer than this one, a cache's), the record's, so every instance answers the same.
 */
export const settledResult = (observed: EventResult, record: ResultRecord | undefined): SettledResult =>
  record === undefined
    ? observed
    : sameScore(record, observed)
    ? { ...observed, settlement: settlementOf(record) }
    : { eventId: observed.eventId, ...scoreOf(record), settlement: settlementOf(record) }
