/**
 * The world's fixtures in the shapes of the protocol notes, section 6 (docs: /work/shared/spec/api-football.md):
 * fixtures with their inline events, lineups, statistics and players.
 */
import { type Fixture, iso, type League, notStarted, statusLong, type Team, winners } from "./FakeApiFootballWorld.ts"

export const teamLogo = (team: Team) => `https://media.api-sports.io/football/teams/${team.id}.png`
export const leagueLogo = (league: League) => `https://media.api-sports.io/football/leagues/${league.id}.png`
const teamJson = (team: Team) => ({ id: team.id, name: team.name, logo: teamLogo(team) })
const player = (team: Team, number: number) => ({ id: team.id * 100 + number, name: `${team.name} Player ${number}` })

/** A side's lineup in 4-3-3: grid "row:column", row 1 the goalkeeper's; substitutes have no grid. */
export const lineupJson = (team: Team) => {
  const positions: ReadonlyArray<readonly [string, string]> = [
    ["G", "1:1"],
    ["D", "2:4"],
    ["D", "2:3"],
    [
      "D",
      "2:2"
    ],
    ["D", "2:1"],
    ["M", "3:3"],
    ["M", "3:2"],
    ["M", "3:1"],
    ["F", "4:3"],
    ["F", "4:2"],
    ["F", "4:1"]
  ]
  return {
    team: {
      ...teamJson(team),
      colors: {
        player: { primary: "e41e2c", number: "ffffff", border: "e41e2c" },
        goalkeeper: { primary: "1d1d1b", number: "ffffff", border: "1d1d1b" }
      }
    },
    coach: {
      id: team.id * 10,
      name: `${team.name} Coach`,
      photo: `https://media.api-sports.io/football/coachs/${team.id * 10}.png`
    },
    formation: "4-3-3",
    startXI: positions.map(([pos, grid], i) => ({ player: { ...player(team, i + 1), number: i + 1, pos, grid } })),
    substitutes: ["G", "D", "M", "F", "F"].map((pos, i) => ({
      player: { ...player(team, 12 + i), number: 12 + i, pos, grid: null }
    }))
  }
}

export const statisticsJson = (fixture: Fixture) =>
  fixture.statistics === null ? [] : (["home", "away"] as const).map((side) => ({
    team: teamJson(fixture[side]),
    statistics: fixture.statistics![side].map((statistic) => ({ ...statistic }))
  }))

export const lineupsJson = (fixture: Fixture) =>
  fixture.lineups ? [lineupJson(fixture.home), lineupJson(fixture.away)] : []

/** A fixture's league as the odds list it (a fixture's own adds its round and standings). */
export const fixtureLeagueJson = (fixture: Fixture) => ({
  id: fixture.league.id,
  name: fixture.league.name,
  country: fixture.league.country,
  logo: leagueLogo(fixture.league),
  flag: fixture.league.flag,
  season: fixture.season
})

/** A fixture as `/fixtures` lists it; with `inline` (a query by id or ids), its events, lineups, statistics, players. */
export const fixtureJson = (fixture: Fixture, inline: boolean) => {
  const started = !notStarted.has(fixture.status)
  const kickoff = fixture.kickoff / 1000
  const secondHalf = started && !["1H", "HT"].includes(fixture.status) && (fixture.elapsed ?? 0) > 45
  const winner = winners(fixture)
  const base = {
    fixture: {
      id: fixture.id,
      referee: started ? "A. Referee, England" : null,
      timezone: "UTC",
      date: iso(fixture.kickoff),
      timestamp: kickoff,
      periods: { first: started ? kickoff : null, second: secondHalf ? kickoff + 3600 : null },
      venue: { id: fixture.home.id + 500, name: `${fixture.home.name} Stadium`, city: fixture.league.country },
      status: { long: statusLong[fixture.status], short: fixture.status, elapsed: fixture.elapsed, extra: null }
    },
    league: { ...fixtureLeagueJson(fixture), round: fixture.round, standings: fixture.league.type === "League" },
    teams: {
      home: { ...teamJson(fixture.home), winner: winner.home },
      away: { ...teamJson(fixture.away), winner: winner.away }
    },
    goals: { ...fixture.goals },
    score: {
      halftime: { ...fixture.halftime },
      fulltime: { ...fixture.fulltime },
      extratime: { ...fixture.extratime },
      penalty: { ...fixture.penalty }
    }
  }
  if (!inline) return base
  return {
    ...base,
    events: fixture.events.map((event, i) => ({
      time: { elapsed: event.elapsed, extra: null },
      team: teamJson(fixture[event.side]),
      player: player(fixture[event.side], 9 + (i % 3)),
      assist: { id: null, name: null },
      type: event.type,
      detail: event.detail,
      comments: null
    })),
    lineups: lineupsJson(fixture),
    statistics: statisticsJson(fixture),
    players: started && fixture.lineups
      ? [fixture.home, fixture.away].map((side) => ({
        team: { ...teamJson(side), update: iso(fixture.kickoff) },
        players: Array.from({ length: 11 }, (_, i) => ({
          player: {
            ...player(side, i + 1),
            photo: `https://media.api-sports.io/football/players/${side.id * 100 + i + 1}.png`
          },
          statistics: [{
            games: {
              minutes: fixture.elapsed,
              number: i + 1,
              position: i === 0 ? "G" : "F",
              rating: "7.1",
              captain: i === 0,
              substitute: false
            },
            goals: { total: null, conceded: i === 0 ? 0 : null, assists: null, saves: null }
          }]
        }))
      }))
      : []
  }
}
