/**
 * A partner's wallet for the benchmark, answering on this machine: it checks
 * each callback's signature with SECRET (as the partner guide asks partners to),
 * applies each event id once, keeps balances in memory, and counts what it
 * received at GET /__stats.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"

const port = Number(process.env.PORT ?? 0)
const secret = process.env.SECRET ?? ""
const balances = new Map<string, number>()
const answers = new Map<string, string>()
const stats = { received: 0, rejected: 0, byKind: {} as Record<string, number>, eventIds: new Map<string, number>() }

const signed = (timestamp: string, signature: string, body: string) => {
  const expected = Buffer.from(`v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`)
  const given = Buffer.from(signature)
  return given.length === expected.length && timingSafeEqual(given, expected) &&
    Math.abs(Date.now() / 1000 - Number(timestamp)) < 300
}

const server = createServer((request, response) => {
  if (request.url === "/__stats") {
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ ...stats, eventIds: undefined, maxCopies: Math.max(0, ...stats.eventIds.values()) }))
    return
  }
  let raw = ""
  request.on("data", (chunk) => (raw += chunk))
  request.on("end", () => {
    stats.received++
    const reply = (status: number, body: string) => {
      response.writeHead(status, { "content-type": "application/json" })
      response.end(body)
    }
    if (!signed(String(request.headers["x-partner-timestamp"]), String(request.headers["x-partner-signature"]), raw)) {
      stats.rejected++
      return reply(401, `{"error":"invalid signature"}`)
    }
    const callback = JSON.parse(raw)
    stats.byKind[callback.kind] = (stats.byKind[callback.kind] ?? 0) + 1
    stats.eventIds.set(callback.event_id, (stats.eventIds.get(callback.event_id) ?? 0) + 1)
    const seen = answers.get(callback.event_id)
    if (seen !== undefined) return reply(200, seen)
    const player = callback.player.external_player_id
    const cents = Math.round((callback.amount ?? 0) * 100)
    const balance = balances.get(player) ?? 100_000_000
    let answer: string
    if (callback.kind === "bet") {
      balances.set(player, balance - cents)
      answer = JSON.stringify({ balance: (balance - cents) / 100 })
    } else if (callback.kind === "balance") {
      answer = JSON.stringify({ balance: balance / 100 })
    } else {
      balances.set(player, balance + cents)
      answer = `{"ok":true}`
    }
    answers.set(callback.event_id, answer)
    reply(200, answer)
  })
})
server.listen(port, "127.0.0.1", () => {
  console.log(`Listening on ${(server.address() as { port: number }).port}`)
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
