import type { Answer, RecordedCall, Script } from "./FakeUpstream.ts"

/**
 * A small set of sports data in BetsAPI's shapes with every fact fixed, so the
 * catalog's filters, sorts and totals can be asserted exactly: two sports,
 * four leagues (one without a country), sixteen teams, 129 events on five
 * days from 2026-12-01: 120 upcoming (a third without odds), 5 in play and
 * 4 ended.
 */

export const day0 = Date.UTC(2026, 11, 1)
const hour = 3_600_000

export interface ProviderEvent {
  readonly id: string
  readonly sportId: number
  readonly league: { readonly id: string; readonly name: string; readonly cc: string | null }
  readonly home: { readonly id: string; readonly name: string }
  readonly away: { readonly id: string; readonly name: string }
  readonly startsAt: number
  /** 0 upcoming, 1 in play, 3 ended and on (4 postponed, 8 abandoned...: the ended list holds them), as BetsAPI's. */
  readonly timeStatus: number
  readonly ss: string | null
  readonly minute: number | null
  readonly hasOdds: boolean
}

export const leagues = [
  { id: "900", name: "Premier Division", cc: "gb", sportId: 1 },
  { id: "901", name: "Liga Primera", cc: "es", sportId: 1 },
  { id: "902", name: "World Cup", cc: null, sportId: 1 },
  { id: "950", name: "Pro League", cc: "us", sportId: 18 }
] as const

const teamNames: Record<string, ReadonlyArray<string>> = {
  "900": ["Arsenal", "Brighton", "Chelsea", "Derby"],
  "901": ["Almería", "Betis", "Cádiz", "Deportivo"],
  "902": ["Brazil", "Croatia", "Denmark", "England"],
  "950": ["Boston", "Chicago", "Denver", "Houston"]
}

export const teamId = (leagueId: string, index: number) => `${leagueId}-${index}`

/** Every event of the data, as the provider would list it. */
export const providerEvents = (): ReadonlyArray<ProviderEvent> => {
  const events: Array<ProviderEvent> = []
  let n = 0
  for (const league of leagues) {
    const names = teamNames[league.id]
    // 30 upcoming per league on days 0..4, pairs cycling through the teams.
    for (let i = 0; i < 30; i++) {
      const home = i % 4
      const away = (home + 1 + (Math.floor(i / 4) % 3)) % 4
      events.push({
        id: String(70_000 + n++),
        sportId: league.sportId,
        league: { id: league.id, name: league.name, cc: league.cc },
        home: { id: teamId(league.id, home), name: names[home] },
        away: { id: teamId(league.id, away), name: names[away] },
        startsAt: day0 + (i % 5) * 24 * hour + (10 + (i % 7)) * hour,
        timeStatus: 0,
        ss: null,
        minute: null,
        hasOdds: i % 3 !== 0
      })
    }
  }
  // In play and ended, on day 0 before the upcoming ones.
  for (let i = 0; i < 5; i++) {
    const league = leagues[i % 2]
    events.push({
      id: String(80_000 + i),
      sportId: 1,
      league: { id: league.id, name: league.name, cc: league.cc },
      home: { id: teamId(league.id, 0), name: teamNames[league.id][0] },
      away: { id: teamId(league.id, 1), name: teamNames[league.id][1] },
      startsAt: day0 + (1 + i) * hour,
      timeStatus: 1,
      ss: `${i}-${i % 2}`,
      minute: 10 + i * 15,
      hasOdds: true
    })
  }
  for (let i = 0; i < 4; i++) {
    const league = leagues[3]
    events.push({
      id: String(90_000 + i),
      sportId: 18,
      league: { id: league.id, name: league.name, cc: league.cc },
      home: { id: teamId(league.id, 2), name: teamNames[league.id][2] },
      away: { id: teamId(league.id, 3), name: teamNames[league.id][3] },
      startsAt: day0 + i * hour,
      timeStatus: 3,
      ss: `${100 + i}-${99 - i}`,
      minute: null,
      hasOdds: false
    })
  }
  return events
}

const eventJson = (event: ProviderEvent) => ({
  id: event.id,
  sport_id: String(event.sportId),
  time: String(event.startsAt / 1000),
  time_status: String(event.timeStatus),
  league: { id: event.league.id, name: event.league.name, cc: event.league.cc },
  home: { id: event.home.id, name: event.home.name, image_id: "1", cc: null },
  away: { id: event.away.id, name: event.away.name, image_id: "2", cc: null },
  ss: event.ss,
  ...(event.minute === null ? {} : { timer: { tm: event.minute, ts: 0, tt: "1", ta: 0, md: 0 } }),
  ...(event.hasOdds ? { bet365_id: `b${event.id}` } : {})
})

const perPage = 50

const paged = (items: ReadonlyArray<unknown>, call: RecordedCall): Answer => {
  const page = Math.max(1, Number(call.query.page ?? 1))
  return {
    kind: "json",
    body: {
      success: 1,
      pager: { page, per_page: perPage, total: items.length },
      results: items.slice((page - 1) * perPage, page * perPage)
    }
  }
}

/** The provider over sports data (by default the set above); `events` may be swapped to change it between refreshes. */
export const catalogProvider = (providerData: { events: ReadonlyArray<ProviderEvent> }): Script => (call) => {
  const sportId = Number(call.query.sport_id ?? 1)
  const bySport = providerData.events.filter((event) => event.sportId === sportId)
  switch (call.path) {
    case "/v1/league":
      // A league's name is the one its events carry, so renaming it in the data renames it everywhere.
      return paged(
        leagues.filter((league) => league.sportId === sportId).map(({ cc, id, name }) => ({
          id,
          name: providerData.events.find((event) => event.league.id === id)?.league.name ?? name,
          cc
        })),
        call
      )
    case "/v3/events/upcoming":
      return paged(bySport.filter((e) => e.timeStatus === 0).map(eventJson), call)
    case "/v3/events/inplay":
      return paged(bySport.filter((e) => e.timeStatus === 1).map(eventJson), call)
    case "/v3/events/ended": {
      // The catalog asks for today's and yesterday's; the data's ended games are all listed for any day, with those
      // that left play or the schedule otherwise (postponed, cancelled, abandoned...: any code from 3 on).
      return paged(bySport.filter((e) => e.timeStatus >= 3).map(eventJson), call)
    }
  }
  // Event calls answer as BetsAPI does: an unknown event's view is an empty list, and its odds, line-up,
  // statistics and result are a success with nothing in them (not NOT_FOUND).
  const event = providerData.events.find((candidate) => candidate.id === call.query.event_id)
  const ok = (results: unknown): Answer => ({ kind: "json", body: { success: 1, results } })
  switch (call.path) {
    case "/v1/event/view":
      return ok(event === undefined ? [] : [eventJson(event)])
    case "/v2/event/odds":
      return ok({ stats: { matching_dir: 1 }, odds: {} })
    case "/v1/event/lineup":
    case "/v1/event/stats_trend":
    case "/v1/bet365/result":
      return ok([])
    default:
      return { kind: "json", body: { success: 0, error: "NOT_FOUND" } }
  }
}
