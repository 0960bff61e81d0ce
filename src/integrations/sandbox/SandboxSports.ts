/**
 * The sandbox's sports data: simulated leagues, teams and squads,
 * answered in the BetsAPI protocol (SandboxSportsAnswers), so the provider
 * adapter maps it exactly as it maps the real one. Everything derives from fixed seeds: leagues,
 * teams and squads never change. Their fixtures, and a match as of now, are in SandboxFixtures.ts.
 */

export const minuteMs = 60_000
export const dayMs = 86_400_000

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

/** Every league of the sandbox's sports data, for tests and the catalog's first look. */
export const sandboxLeagues = leagues.map((league) => ({
  id: league.id,
  name: league.spec.name,
  sportId: league.spec.sport.id,
  countryCode: league.spec.cc,
  teams: league.teams.map((team) => ({ id: team.id, name: team.name, squad: team.squad }))
}))
