import { basketball, chance, dayMs, type League, leagues, minuteMs, soccer, type Team } from "./SandboxSports.ts"

/**
 * The sandbox's fixtures and matches, from the leagues of SandboxSports.ts and the clock: fixtures run on a
 * schedule anchored at 2026-01-01, so event ids are stable across restarts; a match in play has the minute and
 * score its kick-off time gives it now.
 */

const epoch = Date.UTC(2026, 0, 1)
export const windowBack = 7 * dayMs
export const windowAhead = 14 * dayMs

// ---- fixtures

/** Each league plays a round every two days, its matches spread over both days so games are live at most hours. */
const roundEveryMs = 2 * dayMs

export interface Fixture {
  readonly id: string
  readonly league: League
  readonly round: number
  readonly home: Team
  readonly away: Team
  readonly kickOff: number
}

/** Round-robin pairings by the circle method: every team plays once per round. */
const pairings = (teams: ReadonlyArray<Team>, round: number): ReadonlyArray<readonly [Team, Team]> => {
  const n = teams.length
  const rotation = round % (n - 1)
  const order = [teams[0], ...Array.from({ length: n - 1 }, (_, i) => teams[1 + ((i + rotation) % (n - 1))])]
  return Array.from(
    { length: n / 2 },
    (_, i) => round % 2 === 0 ? [order[i], order[n - 1 - i]] as const : [order[n - 1 - i], order[i]] as const
  )
}

const fixturesOfRound = (league: League, round: number): ReadonlyArray<Fixture> =>
  pairings(league.teams, round).map(([home, away], match) => {
    const roundMinutes = roundEveryMs / minuteMs
    const spacing = roundMinutes / (league.teams.length / 2) // minutes between kick-offs
    const kickOff = epoch + round * roundEveryMs +
      Math.round((league.index * 47 + match * spacing) % roundMinutes) * minuteMs
    return {
      id: String(league.index * 10_000_000 + round * 100 + match + 100_000_000),
      league,
      round,
      home,
      away,
      kickOff
    }
  })

export const fixturesBetween = (from: number, to: number): ReadonlyArray<Fixture> => {
  const first = Math.floor((from - epoch) / roundEveryMs) - 1
  const last = Math.ceil((to - epoch) / roundEveryMs)
  const out: Array<Fixture> = []
  for (const league of leagues) {
    for (let round = Math.max(0, first); round <= last; round++) {
      for (const fixture of fixturesOfRound(league, round)) {
        if (fixture.kickOff >= from && fixture.kickOff <= to) out.push(fixture)
      }
    }
  }
  return out.sort((a, b) => a.kickOff - b.kickOff || a.id.localeCompare(b.id))
}

export const fixtureById = (id: string, now: number): Fixture | undefined => {
  const n = Number(id) - 100_000_000
  if (!/^\d+$/.test(id) || !Number.isSafeInteger(n) || n < 0) return undefined
  const league = leagues[Math.floor(n / 10_000_000)]
  const round = Math.floor((n % 10_000_000) / 100)
  const match = n % 100
  if (league === undefined) return undefined
  const fixture = fixturesOfRound(league, round)[match]
  if (fixture === undefined || fixture.id !== id) return undefined
  return fixture.kickOff >= now - windowBack && fixture.kickOff <= now + windowAhead ? fixture : undefined
}

// ---- a match as of now

export interface MatchState {
  /** 0 not started, 1 in play, 3 ended (BetsAPI time_status). */
  readonly timeStatus: 0 | 1 | 3
  readonly minute: number | null
  readonly home: number
  readonly away: number
  /** 0..1 of the match played. */
  readonly progress: number
}

/** Soccer goal minutes, fixed per fixture: stronger sides score more. */
const goals = (fixture: Fixture, side: "home" | "away") => {
  const team = side === "home" ? fixture.home : fixture.away
  const other = side === "home" ? fixture.away : fixture.home
  const expected = 1.3 + (team.strength - other.strength) * 1.5 + (side === "home" ? 0.25 : 0)
  const minutes: Array<number> = []
  for (let i = 0; i < 7; i++) {
    if (chance(fixture.id, side, "goal", i) < Math.max(0.05, expected) / 7) {
      minutes.push(1 + Math.floor(chance(fixture.id, side, "minute", i) * 90))
    }
  }
  return minutes
}

/** The clock of a soccer match: 45 minutes (stoppage shows as 45), a 15-minute break, 45 more and stoppage. */
const soccerMinute = (elapsed: number) =>
  elapsed < 47 ? Math.min(45, Math.max(1, elapsed)) : elapsed < 62 ? 45 : Math.min(90 + 4, 45 + (elapsed - 62))

export const stateOf = (fixture: Fixture, now: number): MatchState => {
  const sport = fixture.league.spec.sport
  const elapsed = Math.floor((now - fixture.kickOff) / minuteMs)
  const timeStatus = elapsed < 0 ? 0 : elapsed >= sport.duration ? 3 : 1
  const progress = timeStatus === 0 ? 0 : timeStatus === 3 ? 1 : elapsed / sport.duration
  if (sport === soccer) {
    const minute = timeStatus === 1 ? soccerMinute(elapsed) : null
    const upTo = timeStatus === 3 ? 90 : minute ?? 0
    return {
      timeStatus,
      minute,
      progress,
      home: goals(fixture, "home").filter((m) => m <= upTo).length,
      away: goals(fixture, "away").filter((m) => m <= upTo).length
    }
  }
  if (sport === basketball) {
    const final = (team: Team, other: Team, side: string) =>
      Math.round(88 + (team.strength - other.strength) * 25 + chance(fixture.id, side, "points") * 24)
    let home = final(fixture.home, fixture.away, "home")
    const away = final(fixture.away, fixture.home, "away")
    if (home === away) home += 1 + Math.floor(chance(fixture.id, "overtime") * 8)
    const minute = timeStatus === 1 ? Math.min(48, Math.floor(progress * 48)) : null
    return { timeStatus, minute, progress, home: Math.round(home * progress), away: Math.round(away * progress) }
  }
  // Tennis, best of three sets: the score is sets won.
  const homeWins = chance(fixture.id, "winner") < 0.5 + (fixture.home.strength - fixture.away.strength) / 2
  const loserSets = chance(fixture.id, "sets") < 0.45 ? 1 : 0
  const totalSets = 2 + loserSets
  const setsPlayed = timeStatus === 3 ? totalSets : Math.floor(progress * totalSets)
  const sequence = Array.from(
    { length: totalSets },
    (_, i) => i === totalSets - 1 ? homeWins : chance(fixture.id, "set", i) < 0.5 ? homeWins : !homeWins
  )
  const won = (home: boolean) => sequence.slice(0, setsPlayed).filter((set) => set === home).length
  return { timeStatus, minute: null, progress, home: won(true), away: won(false) }
}
