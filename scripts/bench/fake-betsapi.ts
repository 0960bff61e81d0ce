/**
 * A stand-in BetsAPI for the benchmark: canned odds for any event id, after
 * a short think time, and a count of the calls it received at /__calls.
 */
import { createServer } from "node:http"

const port = Number(process.env.PORT ?? 0)
let calls = 0

const odds = (eventId: string) => ({
  success: 1,
  results: {
    stats: { matching_dir: 1 },
    odds: {
      "1_1": [{ id: `${eventId}-1`, home_od: "2.100", draw_od: "3.250", away_od: "3.600", ss: null, add_time: "1795349000" }],
      "1_2": [{ id: `${eventId}-2`, home_od: "1.950", handicap: "-0.5", away_od: "1.900", ss: null, add_time: "1795349000" }],
      "1_3": [{ id: `${eventId}-3`, over_od: "1.850", handicap: "2.5", under_od: "1.950", ss: null, add_time: "1795349000" }]
    }
  }
})

const server = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://fake")
  if (url.pathname === "/__calls") {
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ calls }))
    return
  }
  calls++
  setTimeout(() => {
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify(odds(url.searchParams.get("event_id") ?? "0")))
  }, 50)
})
server.listen(port, "127.0.0.1", () => {
  console.log(`Listening on ${(server.address() as { port: number }).port}`)
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
