import * as BetsApi from "../betsapi/BetsApi.ts"
import {
  type Fixture,
  fixtureById,
  fixturesBetween,
  type MatchState,
  stateOf,
  windowAhead,
  windowBack
} from "./SandboxFixtures.ts"
import { basketball, chance, dayMs, leagues, minuteMs, soccer, type Team } from "./SandboxSports.ts"

/**
 * The sandbox's sports data as answers, in the BetsAPI protocol: what the sandbox
 * sports provider hands the same adapter that maps the real BetsAPI.
 */

const perPage = 50

const ok = (results: unknown, pager?: { page: number; per_page: number; total: number }) => ({
  success: 1,
  ...(pager === undefined ? {} : { pager }),
  results
})

const notFound = (detail: string) => ({ success: 0, error: "NOT_FOUND", error_detail: detail })

const eventJson = (fixture: Fixture, now: number) => {
  const state = stateOf(fixture, now)
  const sport = fixture.league.spec.sport
  const team = (t: Team) => ({ id: t.id, name: t.name, image_id: Number(t.id), cc: t.cc })
  return {
    id: fixture.id,
    sport_id: String(sport.id),
    time: String(Math.floor(fixture.kickOff / 1000)),
    time_status: String(state.timeStatus),
    league: { id: fixture.league.id, name: fixture.league.spec.name, cc: fixture.league.spec.cc },
    home: team(fixture.home),
    away: team(fixture.away),
    ss: state.timeStatus === 0 ? null : `${state.home}-${state.away}`,
    ...(state.minute === null
      ? {}
      : { timer: { tm: state.minute, ts: 0, tt: "1", ta: 0, md: state.minute > 45 ? 1 : 0 } }),
    has_lineup: sport.hasLineup ? 1 : 0,
    // Most events are linked to odds; some lower-profile ones are not.
    ...(chance(fixture.id, "odds") < 0.85 ? { bet365_id: String(Number(fixture.id) + 7_000_000) } : {})
  }
}

const page = <A>(items: ReadonlyArray<A>, pageNumber: number) => {
  const start = (pageNumber - 1) * perPage
  return {
    slice: items.slice(start, start + perPage),
    pager: { page: pageNumber, per_page: perPage, total: items.length }
  }
}

const listEvents = (fixtures: ReadonlyArray<Fixture>, params: Readonly<Record<string, string>>, now: number) => {
  const sportId = Number(params.sport_id ?? 1)
  const leagueId = params.league_id
  const filtered = fixtures.filter((f) =>
    f.league.spec.sport.id === sportId && (leagueId === undefined || f.league.id === leagueId)
  )
  const { pager, slice } = page(filtered, Math.max(1, Number(params.page ?? 1)))
  return ok(slice.map((f) => eventJson(f, now)), pager)
}

/** Decimal odds from probabilities, with a bookmaker's margin; exactly 2.0 is quoted as "EVS", as some books do. */
const price = (probability: number) => {
  const value = Math.max(1.01, Math.round((0.94 / Math.min(0.98, Math.max(0.02, probability))) * 1000) / 1000)
  return Math.abs(value - 2) < 0.0005 ? "EVS" : value.toFixed(3)
}

const probabilities = (fixture: Fixture, state: MatchState | undefined, drift: number) => {
  const edge = (fixture.home.strength - fixture.away.strength) + 0.08 + drift
  const inPlay = state === undefined ? 0 : (state.home - state.away) * (0.5 + state.progress)
  const strength = edge * 1.6 + inPlay
  const draw = fixture.league.spec.sport === soccer
    ? Math.max(0.08, 0.28 - Math.abs(strength) * 0.12) * (state ? 1 - state.progress * 0.5 : 1)
    : 0
  const home = (1 - draw) / (1 + Math.exp(-strength * 2))
  return { home, draw, away: 1 - draw - home }
}

const oddsJson = (fixture: Fixture, now: number) => {
  const sport = fixture.league.spec.sport
  const state = stateOf(fixture, now)
  // Pre-match prices move every 10 minutes until kick-off; in play, every minute with the score.
  const priceAt = (at: number, inPlay: boolean) => {
    const bucket = Math.floor(at / (inPlay ? minuteMs : 10 * minuteMs))
    const drift = (chance(fixture.id, "drift", bucket) - 0.5) * 0.08
    const matchState = inPlay ? stateOf(fixture, at) : undefined
    const p = probabilities(fixture, matchState, drift)
    const ss = inPlay && matchState ? `${matchState.home}-${matchState.away}` : null
    const stamp = String(Math.floor(at / 1000))
    if (sport === soccer) {
      const line = (Math.round((fixture.home.strength - fixture.away.strength) * 4) / 2).toFixed(1)
      return {
        "1_1": {
          id: `${fixture.id}-${bucket}-1`,
          home_od: price(p.home),
          draw_od: price(p.draw),
          away_od: price(p.away),
          ss,
          add_time: stamp
        },
        "1_2": {
          id: `${fixture.id}-${bucket}-2`,
          home_od: price(p.home + p.draw / 2),
          handicap: line.startsWith("-") ? line.slice(1) : `-${line}`,
          away_od: price(p.away + p.draw / 2),
          ss,
          add_time: stamp
        },
        "1_3": {
          id: `${fixture.id}-${bucket}-3`,
          over_od: price(0.52 + drift),
          handicap: "2.5",
          under_od: price(0.48 - drift),
          ss,
          add_time: stamp
        }
      }
    }
    if (sport === basketball) {
      const spread = (Math.round((fixture.home.strength - fixture.away.strength) * 20) + 0.5).toFixed(1)
      return {
        "18_1": {
          id: `${fixture.id}-${bucket}-1`,
          home_od: price(p.home),
          away_od: price(p.away),
          ss,
          add_time: stamp
        },
        "18_2": {
          id: `${fixture.id}-${bucket}-2`,
          home_od: price(0.5 + drift),
          handicap: `-${spread}`,
          away_od: price(0.5 - drift),
          ss,
          add_time: stamp
        },
        "18_3": {
          id: `${fixture.id}-${bucket}-3`,
          over_od: price(0.5 - drift),
          handicap: "196.5",
          under_od: price(0.5 + drift),
          ss,
          add_time: stamp
        }
      }
    }
    return {
      "13_1": { id: `${fixture.id}-${bucket}-1`, home_od: price(p.home), away_od: price(p.away), ss, add_time: stamp }
    }
  }
  // Histories run latest first: in-play entries (while live) above the last pre-match ones.
  const preMatchAt = Math.min(now, fixture.kickOff - 1)
  const histories: Record<string, Array<unknown>> = {}
  const push = (at: number, inPlay: boolean) => {
    for (const [key, entry] of Object.entries(priceAt(at, inPlay))) (histories[key] ??= []).push(entry)
  }
  if (state.timeStatus === 1) {
    push(now, true)
    push(now - minuteMs, true)
  }
  push(preMatchAt, false)
  push(preMatchAt - 10 * minuteMs, false)
  return ok({ stats: { matching_dir: 1 }, odds: histories })
}

const lineupJson = (fixture: Fixture) => {
  const side = (team: Team) => ({
    startinglineup: team.squad.map((name, i) => ({
      player: { id: `${team.id}${String(i).padStart(2, "0")}`, name, cc: team.cc },
      shirtnumber: String(i + 1),
      pos: fixture.league.spec.sport === soccer ? (i === 0 ? "G" : i < 5 ? "D" : i < 9 ? "M" : "F") : ""
    })),
    substitutes: []
  })
  return ok({ home: side(fixture.home), away: side(fixture.away) })
}

const statsJson = (fixture: Fixture, now: number) => {
  const state = stateOf(fixture, now)
  if (state.timeStatus === 0 || !fixture.league.spec.sport.hasStats) return ok({})
  const minute = state.timeStatus === 3 ? 90 : Math.min(90, state.minute ?? 0)
  const possessionHome = Math.round(50 + (fixture.home.strength - fixture.away.strength) * 30)
  const series = (rate: number, key: string, side: string) =>
    Array.from({ length: Math.max(1, Math.floor(minute / 10)) }, (_, i) => {
      const at = Math.min(minute, (i + 1) * 10)
      return { time_str: String(at), val: String(Math.floor(at * rate * (0.7 + 0.6 * chance(fixture.id, key, side)))) }
    })
  const pair = (key: string, rateHome: number, rateAway: number) => ({
    home: series(rateHome, key, "home"),
    away: series(rateAway, key, "away")
  })
  const strong = (team: Team) => 0.5 + team.strength
  return ok({
    attacks: pair("attacks", 1.1 * strong(fixture.home), 1.1 * strong(fixture.away)),
    dangerous_attacks: pair("dangerous", 0.55 * strong(fixture.home), 0.55 * strong(fixture.away)),
    possession_rt: {
      home: [{ time_str: String(minute), val: String(possessionHome) }],
      away: [{ time_str: String(minute), val: String(100 - possessionHome) }]
    },
    on_target: pair("on_target", 0.06 * strong(fixture.home), 0.06 * strong(fixture.away)),
    off_target: pair("off_target", 0.07 * strong(fixture.home), 0.07 * strong(fixture.away)),
    corners: pair("corners", 0.06 * strong(fixture.home), 0.06 * strong(fixture.away)),
    yellowcards: pair("yellow", 0.025, 0.03),
    redcards: { home: [{ time_str: String(minute), val: "0" }], away: [{ time_str: String(minute), val: "0" }] }
  })
}

/** Answers one BetsAPI-style GET as of `now`. */
export const answer = (path: string, params: Readonly<Record<string, string>>, now: number): unknown => {
  switch (path) {
    case BetsApi.paths.leagues: {
      const sportId = Number(params.sport_id ?? 1)
      const matching = leagues.filter((league) =>
        league.spec.sport.id === sportId && (params.cc === undefined || league.spec.cc === params.cc)
      )
      const { pager, slice } = page(matching, Math.max(1, Number(params.page ?? 1)))
      return ok(
        slice.map((league) => ({
          id: league.id,
          name: league.spec.name,
          cc: league.spec.cc,
          has_leaguetable: 1,
          has_toplist: 0
        })),
        pager
      )
    }
    case BetsApi.paths.upcoming:
      return listEvents(
        fixturesBetween(now, now + windowAhead).filter((f) => stateOf(f, now).timeStatus === 0),
        params,
        now
      )
    case BetsApi.paths.inplay:
      return listEvents(fixturesBetween(now - dayMs, now).filter((f) => stateOf(f, now).timeStatus === 1), params, now)
    case BetsApi.paths.ended: {
      const day = params.day
      const dayStart = day === undefined
        ? undefined
        : Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8)))
      const ended = fixturesBetween(now - windowBack, now)
        .filter((f) => stateOf(f, now).timeStatus === 3)
        .filter((f) => dayStart === undefined || (f.kickOff >= dayStart && f.kickOff < dayStart + dayMs))
        .reverse()
      return listEvents(ended, params, now)
    }
  }
  const fixture = fixtureById(params.event_id ?? "", now)
  if (fixture === undefined) return notFound(`event_id ${params.event_id ?? ""} not found`)
  switch (path) {
    case BetsApi.paths.view:
      return ok([eventJson(fixture, now)])
    case BetsApi.paths.odds:
      return oddsJson(fixture, now)
    case BetsApi.paths.lineup:
      return fixture.league.spec.sport.hasLineup ? lineupJson(fixture) : ok({})
    case BetsApi.paths.statsTrend:
      return statsJson(fixture, now)
    case BetsApi.paths.result: {
      const event = eventJson(fixture, now)
      return ok([{ id: event.id, time_status: event.time_status, ss: event.ss, home: event.home, away: event.away }])
    }
    default:
      return { success: 0, error: "PARAM_INVALID", error_detail: `unknown path ${path}` }
  }
}
