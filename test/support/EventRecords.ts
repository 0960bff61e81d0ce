import type { EventRecord } from "../../src/domain/SportsChanges.ts"

/** The instant the change rules' tests are set at: an event of theirs kicks off then. */
export const recordsAt = Date.UTC(2026, 11, 1, 12)

/** What the change log knows of an event: one not started, last answered a minute before `recordsAt`. */
export const eventRecord = (fields: Partial<EventRecord> = {}): EventRecord => ({
  eventId: "7",
  sportId: 1,
  leagueId: "900",
  leagueName: "Premier Division",
  homeName: "Arsenal",
  awayName: "Chelsea",
  startsAt: recordsAt,
  status: "scheduled",
  reason: null,
  active: true,
  score: null,
  minute: null,
  finalAt: null,
  answeredAt: recordsAt - 60_000,
  ...fields
})
