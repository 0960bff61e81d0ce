/**
 * The sandbox's sports data: simulated leagues and fixtures,
 * answered in the BetsAPI protocol (SandboxSportsAnswers), so the provider
 * adapter maps it exactly as it maps the real one. Everything derives from fixed seeds and the clock: leagues,
 * teams and squads never change; fixtures run on a schedule anchored at
 * 2026-01-01, so event ids are stable across restarts; a match in play has
 * the minute and score its kick-off time gives it now; odds drift every few
 * minutes and follow the score in play.
 */

export const minuteMs = 60_000
export const dayMs = 86_400_000
const epoch = Date.UTC(2026, 0, 1)
export const windowBack = 7 * dayMs
export const windowAhead = 14 * dayMs

// ---- deterministic randomness

const hash = (text: string) => {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return h >>> 0
}

/** A number in [0, 1) fixed by its parts. */
export const chance = (...parts: ReadonlyArray<string | number>) => {
  let t = (hash(parts.join("|")) + 0x6d2b79f5) | 0
  t = Math.imul(t ^ (t >>> 15), 1 | t)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const pick = <A>(items: ReadonlyArray<A>, ...parts: ReadonlyArray<string | number>) =>
  items[Math.floor(chance(...parts) * items.length)]

// ---- the sports

interface Sport {
  readonly id: number
  /** Kick-off to final whistle, breaks included, in minutes. */
  readonly duration: number
  readonly hasLineup: boolean
  readonly hasStats: boolean
}

export const soccer: Sport = { id: 1, duration: 111, hasLineup: true, hasStats: true }
export const basketball: Sport = { id: 18, duration: 130, hasLineup: true, hasStats: false }
const tennis: Sport = { id: 13, duration: 100, hasLineup: false, hasStats: false }

interface LeagueSpec {
  readonly sport: Sport
  readonly name: string
  readonly cc: string | null
}

const leagueSpecs: ReadonlyArray<LeagueSpec> = [
  { sport: soccer, name: "Brasileiro Série A", cc: "br" },
  { sport: soccer, name: "Brasileiro Série B", cc: "br" },
  { sport: soccer, name: "Liga Primera", cc: "es" },
  { sport: soccer, name: "Premier Division", cc: "gb" },
  { sport: soccer, name: "Serie Nazionale", cc: "it" },
  { sport: soccer, name: "Bundesklasse", cc: "de" },
  { sport: soccer, name: "Primera Nacional", cc: "ar" },
  { sport: soccer, name: "Liga Portuguesa", cc: "pt" },
  { sport: soccer, name: "Ligue Élite", cc: "fr" },
  { sport: basketball, name: "Pro Basketball League", cc: "us" },
  { sport: basketball, name: "Liga de Baloncesto", cc: "es" },
  { sport: basketball, name: "Novo Basquete Brasil", cc: "br" },
  { sport: tennis, name: "ATP Sandbox Open", cc: null },
  { sport: tennis, name: "WTA Sandbox Cup", cc: null }
]

const cities: Readonly<Record<string, ReadonlyArray<string>>> = {
  br: [
    "São Paulo",
    "Rio",
    "Belo Horizonte",
    "Porto Alegre",
    "Recife",
    "Salvador",
    "Curitiba",
    "Fortaleza",
    "Goiânia",
    "Manaus",
    "Belém",
    "Santos",
    "Campinas",
    "Natal",
    "Vitória",
    "Cuiabá",
    "Maceió",
    "Londrina",
    "Joinville",
    "Florianópolis"
  ],
  es: ["Madrid", "Barcelona", "Sevilla", "Valencia", "Bilbao", "Málaga", "Zaragoza", "Vigo", "Granada", "Murcia"],
  gb: [
    "London",
    "Manchester",
    "Liverpool",
    "Leeds",
    "Bristol",
    "Newcastle",
    "Brighton",
    "Norwich",
    "Derby",
    "Sheffield"
  ],
  it: ["Milano", "Roma", "Torino", "Napoli", "Firenze", "Genova", "Bologna", "Verona", "Bari", "Palermo"],
  de: ["Berlin", "München", "Hamburg", "Köln", "Frankfurt", "Stuttgart", "Bremen", "Dortmund", "Leipzig", "Hannover"],
  ar: [
    "Buenos Aires",
    "Rosario",
    "Córdoba",
    "Mendoza",
    "La Plata",
    "Tucumán",
    "Santa Fe",
    "Mar del Plata",
    "Salta",
    "Paraná"
  ],
  pt: ["Lisboa", "Porto", "Braga", "Coimbra", "Faro", "Aveiro", "Setúbal", "Funchal", "Guimarães", "Viseu"],
  fr: ["Paris", "Lyon", "Marseille", "Lille", "Nantes", "Bordeaux", "Nice", "Rennes", "Toulouse", "Strasbourg"],
  us: ["Boston", "Chicago", "Denver", "Houston", "Miami", "Phoenix", "Seattle", "Dallas", "Atlanta", "Portland"]
}

const clubSuffixes: Readonly<Record<string, ReadonlyArray<string>>> = {
  br: ["Esporte Clube", "FC", "Atlético", "Futebol Clube"],
  es: ["CF", "Deportivo", "Atlético", "Unión"],
  ar: ["CF", "Deportivo", "Atlético", "Unión"],
  gb: ["FC", "United", "City", "Rovers"],
  it: ["Calcio", "FC", "Sportiva", "Atletico"],
  de: ["FC", "SV", "Sportfreunde", "Eintracht"],
  pt: ["FC", "Sporting", "Desportivo", "Académica"],
  fr: ["FC", "Olympique", "Racing", "Stade"]
}
const basketballSuffixes = ["Hawks", "Comets", "Titans", "Bulls", "Wolves", "Stars", "Kings", "Pioneers"]
const firstNames = [
  "Lucas",
  "Mateo",
  "João",
  "Pedro",
  "Diego",
  "Luca",
  "Max",
  "Noah",
  "Hugo",
  "Leo",
  "Rafael",
  "Tomás",
  "Bruno",
  "Enzo",
  "Felipe",
  "Gabriel",
  "Marco",
  "Iván",
  "Théo",
  "Jonas"
]
const lastNames = [
  "Silva",
  "García",
  "Rossi",
  "Müller",
  "Smith",
  "Costa",
  "Fernández",
  "Martin",
  "Santos",
  "López",
  "Bianchi",
  "Schmidt",
  "Oliveira",
  "Dubois",
  "Pereira",
  "Moreno",
  "Ferrari",
  "Weber",
  "Souza",
  "Romero"
]
const tennisNames = [
  "A. Novak",
  "R. Alcaraz",
  "J. Sinner",
  "D. Medvedev",
  "C. Ruud",
  "T. Fritz",
  "A. Rublev",
  "H. Hurkacz",
  "S. Tsitsipas",
  "F. Auger",
  "G. Dimitrov",
  "B. Shelton",
  "T. Paul",
  "U. Humbert",
  "A. de Minaur",
  "L. Musetti"
]
const wtaNames = [
  "I. Swiatek",
  "A. Sabalenka",
  "C. Gauff",
  "E. Rybakina",
  "J. Pegula",
  "O. Jabeur",
  "M. Vondrousova",
  "Q. Zheng",
  "M. Sakkari",
  "B. Krejcikova",
  "D. Kasatkina",
  "J. Ostapenko",
  "L. Samsonova",
  "E. Svitolina",
  "B. Haddad",
  "M. Keys"
]

export interface Team {
  readonly id: string
  readonly name: string
  readonly cc: string | null
  /** 0..1: how good the side is. */
  readonly strength: number
  readonly squad: ReadonlyArray<string>
}

export interface League {
  readonly id: string
  readonly index: number
  readonly spec: LeagueSpec
  readonly teams: ReadonlyArray<Team>
}

const squadOf = (sport: Sport, teamId: string) =>
  sport === tennis
    ? []
    : Array.from({ length: sport === soccer ? 11 : 5 }, (_, i) =>
      `${pick(firstNames, teamId, "first", i)} ${pick(lastNames, teamId, "last", i)}`)

export const leagues: ReadonlyArray<League> = leagueSpecs.map((spec, index) => {
  const id = String(10_000 + index * 37)
  const size = spec.sport === basketball ? 10 : 16
  const names = spec.sport === tennis
    ? (spec.name.startsWith("WTA") ? wtaNames : tennisNames)
    : Array.from({ length: size }, (_, i) => {
      const cityPool = cities[spec.cc ?? ""] ?? cities.gb
      const city = cityPool[(i + index * 3) % cityPool.length]
      const suffixes = spec.sport === basketball ? basketballSuffixes : clubSuffixes[spec.cc ?? ""] ?? clubSuffixes.gb
      // A second club in the same city takes another suffix.
      return `${city} ${suffixes[(i + index + Math.floor(i / cityPool.length)) % suffixes.length]}`
    })
  const teams = names.slice(0, size).map((name, i): Team => {
    const teamId = String(200_000 + index * 100 + i)
    return {
      id: teamId,
      name,
      cc: spec.cc,
      strength: 0.2 + 0.6 * chance("strength", teamId),
      squad: squadOf(spec.sport, teamId)
    }
  })
  return { id, index, spec, teams }
})

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

/** Every league of the sandbox's sports data, for tests and the catalog's first look. */
export const sandboxLeagues = leagues.map((league) => ({
  id: league.id,
  name: league.spec.name,
  sportId: league.spec.sport.id,
  countryCode: league.spec.cc,
  teams: league.teams.map((team) => ({ id: team.id, name: team.name, squad: team.squad }))
}))
