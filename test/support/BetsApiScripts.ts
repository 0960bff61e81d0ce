import type { Answer, Script } from "./FakeUpstream.ts"

/** Payloads in the documented BetsAPI shapes, with the string-typed fields public clients see. */

export const betsApiToken = "betsapi-secret-token-123"

const kickOff = String(Math.floor(Date.UTC(2026, 10, 22, 15, 0) / 1000))

const team = (id: string, name: string, cc: string) => ({ id, name, image_id: String(Number(id) * 3), cc })

export const event = (id: string, timeStatus: string, extra: Record<string, unknown> = {}) => ({
  id,
  sport_id: "1",
  time: kickOff,
  time_status: timeStatus,
  league: { id: "94", name: "England Premier League", cc: "gb" },
  home: team("10", "Arsenal", "gb"),
  away: team("17", "Chelsea", "gb"),
  o_home: null,
  o_away: null,
  ss: null,
  our_event_id: "654321",
  r_id: null,
  has_lineup: 1,
  ...extra
})

const ok = (results: unknown, pager?: unknown): Answer => ({
  kind: "json",
  body: { success: 1, ...(pager === undefined ? {} : { pager }), results }
})

export const notFound: Answer = {
  kind: "json",
  body: { success: 0, error: "NOT_FOUND", error_detail: "event_id not found" }
}

/** Event 1001 is live, 1002 upcoming, 1003 ended; anything else is NOT_FOUND. */
export const healthyBetsApi: Script = (call) => {
  if (call.query.token !== betsApiToken) {
    return {
      kind: "json",
      body: { success: 0, error: "AUTHORIZE_FAILED", error_detail: `invalid token ${call.query.token}` }
    }
  }
  const live = event("1001", "1", {
    ss: "1-0",
    timer: { tm: 34, ts: 12, tt: "1", ta: 0, md: 0 },
    scores: { "2": { home: "1", away: "0" } }
  })
  const upcoming = event("1002", "0")
  const ended = event("1003", "3", { ss: "2-1", scores: { "2": { home: "2", away: "1" } } })
  const byId: Record<string, Record<string, any>> = { "1001": live, "1002": upcoming, "1003": ended }
  switch (call.path) {
    case "/v1/league":
      return ok([
        { id: "94", name: "England Premier League", cc: "gb", has_leaguetable: 1, has_toplist: 1 },
        { id: 123, name: "Brazil Serie A", cc: "br", has_leaguetable: 1, has_toplist: 0 },
        { id: "3", name: "UEFA Champions League", cc: null, has_leaguetable: 0, has_toplist: 0 }
      ], { page: 1, per_page: "100", total: "3" })
    case "/v3/events/upcoming":
      return ok([upcoming], { page: 1, per_page: 50, total: 1 })
    case "/v3/events/inplay":
      return ok([live], { page: 1, per_page: 50, total: 1 })
    case "/v3/events/ended":
      return ok([ended], { page: "1", per_page: "50", total: "1" })
  }
  const found = byId[call.query.event_id ?? ""]
  if (found === undefined) return notFound
  switch (call.path) {
    case "/v1/event/view":
      return ok([found])
    case "/v2/event/odds":
      return ok({
        stats: { matching_dir: 1, odds_update: { "1_1": 1795350000 } },
        odds: {
          "1_1": [
            {
              id: "9",
              home_od: "1.833",
              draw_od: "3.400",
              away_od: "EVS",
              ss: "1-0",
              time_str: "34",
              add_time: "1795352040"
            },
            {
              id: "8",
              home_od: "2.100",
              draw_od: "3.250",
              away_od: "3.600",
              ss: null,
              time_str: null,
              add_time: "1795349000"
            }
          ],
          "1_2": [{ id: "7", home_od: "1.950", handicap: "-0.5", away_od: "1.900", ss: null, add_time: "1795349000" }],
          // Nothing numeric at all: the market is left out.
          "1_3": [{ id: "6", over_od: "-", handicap: "2.5", under_od: "", ss: null, add_time: "1795349000" }]
        }
      })
    case "/v1/event/lineup":
      return ok({
        home: {
          formation: "4-3-3",
          startinglineup: [
            { player: { id: "1", name: "D. Raya", cc: "es" }, shirtnumber: "22", pos: "G" },
            { player: { id: "2", name: "W. Saliba", cc: "fr" }, shirtnumber: "2", pos: "D" }
          ],
          substitutes: [{ player: { id: "3", name: "Substitute" }, shirtnumber: "30", pos: "" }]
        },
        away: {
          startinglineup: [{ player: { id: "4", name: "R. Sánchez", cc: "es" }, shirtnumber: "1", pos: "G" }]
        }
      })
    case "/v1/event/stats_trend":
      return ok({
        attacks: {
          home: [{ time_str: "10", val: "5" }, { time_str: "20", val: "11" }],
          away: [{ time_str: "10", val: "4" }]
        },
        possession_rt: { home: [{ time_str: "34", val: "55" }], away: [{ time_str: "34", val: "45" }] },
        on_target: { home: [{ time_str: "30", val: "3" }], away: [{ time_str: "30", val: "1" }] },
        some_new_stat: { home: [{ time_str: "30", val: "9" }], away: [] }
      })
    case "/v1/bet365/result":
      return ok([{ id: found.id, time_status: found.time_status, ss: found.ss, scores: found.scores ?? {} }])
    default:
      return { kind: "json", body: { success: 0, error: "PARAM_INVALID", error_detail: call.path } }
  }
}
