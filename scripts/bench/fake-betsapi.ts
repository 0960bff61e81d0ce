/**
 * A stand-in BetsAPI for the benchmark, counting the calls it receives
 * (GET /__calls):
 * - odds: canned markets for any event id, after a 50 ms think time; with
 *   ODDS_MARKETS, that many markets of three prices each, every price moved
 *   by each GET /__odds_bump;
 * - catalog: CATALOG_EVENTS upcoming soccer events (sport_id 1) in
 *   CATALOG_LEAGUES leagues of 25 teams, spread over the next 14 days,
 *   listed 50 a page as BetsAPI does; nothing in play or ended.
 */
import { createServer } from "node:http"
import { paths } from "../../src/integrations/betsapi/BetsApi.ts"

const port = Number(process.env.PORT ?? 0)
const eventCount = Number(process.env.CATALOG_EVENTS ?? 0)
const leagueCount = Number(process.env.CATALOG_LEAGUES ?? 2_000)
const perPage = 50
const countries = ["gb", "es", "de", "it", "fr", "br", "ar", "pt", "nl", "us", "mx", "jp"]
const startsFrom = Math.floor(Date.now() / 1000) + 3_600
const oddsMarkets = Number(process.env.ODDS_MARKETS ?? 0)
let calls = 0
let oddsVersion = 0

/** ODDS_MARKETS markets, their prices moved by each bump. */
const manyOdds = (eventId: string) => ({
  success: 1,
  results: {
    stats: { matching_dir: 1 },
    odds: Object.fromEntries(Array.from({ length: oddsMarkets }, (_, i) => {
      const base = 1.5 + (i % 50) / 100 + oddsVersion / 1000
      return [`1_${1000 + i}`, [{
        id: `${eventId}-${i}-${oddsVersion}`,
        home_od: base.toFixed(3),
        draw_od: (base + 1).toFixed(3),
        away_od: (base + 2).toFixed(3),
        ss: null,
        add_time: String(Math.floor(Date.now() / 1000))
      }]]
    }))
  }
})

const odds = (eventId: string) =>
  oddsMarkets > 0 ? manyOdds(eventId) : ({
    success: 1,
    results: {
      stats: { matching_dir: 1 },
      odds: {
        "1_1": [{
          id: `${eventId}-1`,
          home_od: "2.100",
          draw_od: "3.250",
          away_od: "3.600",
          ss: null,
          add_time: "1795349000"
        }],
        "1_2": [{
          id: `${eventId}-2`,
          home_od: "1.950",
          handicap: "-0.5",
          away_od: "1.900",
          ss: null,
          add_time: "1795349000"
        }],
        "1_3": [{
          id: `${eventId}-3`,
          over_od: "1.850",
          handicap: "2.5",
          under_od: "1.950",
          ss: null,
          add_time: "1795349000"
        }]
      }
    }
  })

const league = (n: number) => ({
  id: String(10_000 + n),
  name: `Bench League ${n}`,
  cc: countries[n % countries.length]
})

const team = (leagueIndex: number, slot: number) => ({
  id: String(100_000 + leagueIndex * 25 + slot),
  name: `Bench Team ${leagueIndex * 25 + slot}`,
  image_id: "0",
  cc: null
})

const event = (n: number) => {
  const leagueIndex = n % leagueCount
  const home = Math.floor(n / leagueCount) % 25
  const away = (home + 1 + (Math.floor(n / (leagueCount * 25)) % 24)) % 25
  return {
    id: String(5_000_000 + n),
    sport_id: "1",
    time: String(startsFrom + Math.floor((n * 14 * 86_400) / Math.max(eventCount, 1))),
    time_status: "0",
    league: league(leagueIndex),
    home: team(leagueIndex, home),
    away: team(leagueIndex, away),
    ss: null,
    ...(n % 7 === 0 ? {} : { bet365_id: String(9_000_000 + n) })
  }
}

const page = (total: number, number: number, item: (n: number) => unknown) => ({
  success: 1,
  pager: { page: number, per_page: perPage, total },
  results: Array.from(
    { length: Math.max(0, Math.min(perPage, total - (number - 1) * perPage)) },
    (_, i) => item((number - 1) * perPage + i)
  )
})

const answer = (url: URL): unknown => {
  const pageNumber = Math.max(1, Number(url.searchParams.get("page") ?? 1))
  const soccer = url.searchParams.get("sport_id") === "1"
  switch (url.pathname) {
    case paths.odds:
      return odds(url.searchParams.get("event_id") ?? "0")
    case paths.leagues:
      return page(soccer ? leagueCount : 0, pageNumber, league)
    case paths.upcoming:
      return page(soccer ? eventCount : 0, pageNumber, event)
    case paths.inplay:
    case paths.ended:
      return page(0, pageNumber, event)
    default:
      return { success: 0, error: "NOT_FOUND" }
  }
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://fake")
  if (url.pathname === "/__odds_bump") {
    oddsVersion++
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ version: oddsVersion }))
    return
  }
  if (url.pathname === "/__calls") {
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ calls }))
    return
  }
  calls++
  const body = JSON.stringify(answer(url))
  const send = () => {
    response.writeHead(200, { "content-type": "application/json" })
    response.end(body)
  }
  if (url.pathname === paths.odds) setTimeout(send, 50)
  else send()
})
server.listen(port, "127.0.0.1", () => {
  console.log(`Listening on ${(server.address() as { port: number }).port}`)
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
