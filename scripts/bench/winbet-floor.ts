/**
 * The limit of the wallet's design, as the benchmark's baseline: a plain
 * node:http + pg program answering the aggregator's WinBet the way the
 * service must, with nothing else. Per call: the bet written pending and
 * committed (durable before the partner hears of it), the signed bet callback
 * to the partner's wallet and its answer, then the settle committed (the bet's
 * outcome and answer, the player's mirror, the callback asked and, for a win,
 * the notification to deliver). It keeps the players in memory (their user
 * codes never change), prepares its statements, and checks nothing the
 * benchmark does not send: no replays, rounds, refunds, shadow players or
 * outbox delivery. What the service does beyond this is the price of its rules.
 *
 * PORT, DATABASE_URL (a database of its own: it creates its tables),
 * PARTNER_URL and SECRET (the partner's wallet and its webhook secret),
 * AGENT_SECRET, PLAYERS (user codes 1..PLAYERS), POOL (connections, 20 as the service).
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import pg from "pg"

const port = Number(process.env.PORT ?? 0)
const partnerUrl = process.env.PARTNER_URL ?? ""
const secret = process.env.SECRET ?? ""
const agentSecret = Buffer.from(process.env.AGENT_SECRET ?? "")
const players = Number(process.env.PLAYERS ?? 1000)
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL ?? 20) })

await pool.query(`
  CREATE TABLE IF NOT EXISTS floor_players (
    user_code bigint PRIMARY KEY, external_id text NOT NULL, balance numeric(20, 2)
  );
  CREATE TABLE IF NOT EXISTS floor_bets (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    txn_id text NOT NULL UNIQUE, user_code bigint NOT NULL REFERENCES floor_players, round_id text NOT NULL,
    bet numeric(20, 2) NOT NULL, win numeric(20, 2) NOT NULL, status text NOT NULL, answer jsonb,
    created_at timestamptz NOT NULL DEFAULT now(), settled_at timestamptz
  );
  CREATE TABLE IF NOT EXISTS floor_callbacks (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id text NOT NULL UNIQUE, bet_id bigint NOT NULL REFERENCES floor_bets, kind text NOT NULL,
    body text NOT NULL, status text NOT NULL, created_at timestamptz NOT NULL DEFAULT now()
  );
  INSERT INTO floor_players (user_code, external_id, balance)
  SELECT n, 'floor-player-' || n, 1000000 FROM generate_series(1, ${players}) AS n
  ON CONFLICT DO NOTHING;
`)
const externalIds = new Map<number, string>()
for (
  const row of (await pool.query<{ user_code: string; external_id: string }>(
    "SELECT user_code, external_id FROM floor_players"
  )).rows
) {
  externalIds.set(Number(row.user_code), row.external_id)
}

const eventId = (kind: string, txnId: string) =>
  `evt_${createHash("sha256").update(`${kind}:${txnId}`).digest("hex").slice(0, 32)}`
const sameSecret = (given: unknown) => {
  const candidate = Buffer.from(typeof given === "string" ? given : "")
  return candidate.length === agentSecret.length && timingSafeEqual(candidate, agentSecret)
}

interface Slot {
  readonly bet: number
  readonly win: number
  readonly txn_id: string
  readonly round_id: string
  readonly game_code: string
  readonly provider_code: string
}

const winBet = async (userCode: number, slot: Slot) => {
  const externalId = externalIds.get(userCode)
  if (externalId === undefined) return { msg: "INVALID_USER", balance: 0 }
  const opened = await pool.query<{ id: string }>({
    name: "open",
    text:
      `INSERT INTO floor_bets (txn_id, user_code, round_id, bet, win, status) VALUES ($1, $2, $3, $4, $5, 'pending') RETURNING id`,
    values: [slot.txn_id, userCode, slot.round_id, slot.bet.toFixed(2), slot.win.toFixed(2)]
  })
  const betId = opened.rows[0].id
  const now = new Date()
  const party = { partner: "bench-floor", external_player_id: externalId, user_code: userCode }
  const transaction = {
    txn_id: slot.txn_id,
    round_id: slot.round_id,
    game_code: slot.game_code,
    provider_code: slot.provider_code
  }
  const betEvent = eventId("bet", slot.txn_id)
  const body = JSON.stringify({
    event_id: betEvent,
    kind: "bet",
    created_at: now.toISOString(),
    player: party,
    transaction,
    amount: slot.bet
  })
  const timestamp = Math.floor(now.getTime() / 1000)
  let balance: number | undefined
  try {
    const response = await fetch(partnerUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-partner-event-id": betEvent,
        "x-partner-timestamp": String(timestamp),
        "x-partner-signature": `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`
      },
      body,
      signal: AbortSignal.timeout(5_000)
    })
    const answer = await response.json() as { balance?: unknown }
    if (response.ok && typeof answer.balance === "number") balance = answer.balance + slot.win
  } catch {
    balance = undefined
  }
  const answer = balance === undefined ? { msg: "INSUFFICIENT_USER_FUNDS", balance: 0 } : { msg: "", balance }
  const win = balance !== undefined && slot.win > 0
    ? JSON.stringify({
      event_id: eventId("win", slot.txn_id),
      kind: "win",
      created_at: now.toISOString(),
      player: party,
      transaction,
      amount: slot.win,
      balance
    })
    : null
  await pool.query({
    name: "settle",
    text: `WITH settled AS (
             UPDATE floor_bets SET status = $2, answer = $3::jsonb, settled_at = now() WHERE id = $1 RETURNING id
           ),
           mirror AS (UPDATE floor_players SET balance = $4 WHERE user_code = $5 AND $4::numeric IS NOT NULL RETURNING 1),
           asked AS (INSERT INTO floor_callbacks (event_id, bet_id, kind, body, status) SELECT $6, id, 'bet', $7, 'delivered' FROM settled)
           INSERT INTO floor_callbacks (event_id, bet_id, kind, body, status) SELECT $8, id, 'win', $9, 'pending' FROM settled WHERE $9::text IS NOT NULL`,
    values: [
      betId,
      balance === undefined ? "refused" : "applied",
      JSON.stringify(answer),
      balance === undefined ? null : balance.toFixed(2),
      userCode,
      betEvent,
      body,
      eventId("win", slot.txn_id),
      win
    ]
  })
  return answer
}

const server = createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    const reply = (status: number, answer: unknown) => {
      const text = JSON.stringify(answer)
      response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
      response.end(text)
    }
    let call: { agent_secret?: unknown; type?: unknown; user_code?: unknown; slot?: Slot }
    try {
      call = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      return reply(400, { msg: "INVALID_REQUEST", balance: 0 })
    }
    if (!sameSecret(call.agent_secret)) return reply(401, { msg: "INVALID_AGENT", balance: 0 })
    if (call.type !== "WinBet" || typeof call.user_code !== "number" || call.slot === undefined) {
      return reply(400, { msg: "INVALID_REQUEST", balance: 0 })
    }
    winBet(call.user_code, call.slot).then(
      (answer) => reply(200, answer),
      (error: unknown) => reply(500, { msg: "INTERNAL_ERROR", balance: 0, error: String(error) })
    )
  })
})
server.listen(port, "127.0.0.1", () => {
  console.log(`Listening on ${(server.address() as { port: number }).port}`)
})
process.on("SIGTERM", () => server.close(() => pool.end().then(() => process.exit(0))))
