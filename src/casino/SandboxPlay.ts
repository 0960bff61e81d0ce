import { Effect, Option, Redacted, Schema } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest, HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { NetAddress } from "effect/net"
import { SqlClient } from "effect/sql"
import { randomInt } from "node:crypto"
import { walletPath } from "../callbacks/AggregatorRoute.ts"
import { WalletCredentials } from "../callbacks/WalletCredentials.ts"
import { parseCents, toAmount } from "../domain/Money.ts"
import { isStorableText } from "../domain/Text.ts"
import { type Refusal, refusalReasons } from "../domain/Wallet.ts"

/** Stakes the sandbox game offers. */
export const sandboxStakes = [0.5, 1, 2, 5] as const

/** Three reels of six symbols: three sevens pay 25x, three of a kind 10x, a pair 1.5x (about 93% back). */
const spinReels = () => [randomInt(6), randomInt(6), randomInt(6)]
const payout = (reels: ReadonlyArray<number>) => {
  const [a, b, c] = reels
  if (a === b && b === c) return a === 0 ? 25 : 10
  return a === b || b === c || a === c ? 1.5 : 0
}

const SpinRequest = Schema.Struct({ bet: Schema.optional(Schema.Literals(sandboxStakes)) })

const SessionRow = Schema.Struct({
  id: Schema.String,
  user_code: Schema.BigInt,
  game_code: Schema.String,
  provider: Schema.String,
  spins: Schema.Int
})

const WalletAnswer = Schema.Struct({ msg: Schema.String, balance: Schema.Finite })

const decodeSessionRows = Schema.decodeUnknownEffect(Schema.Array(SessionRow))
const decodeWalletAnswer = Schema.decodeUnknownEffect(WalletAnswer)

/**
 * The sandbox aggregator at play: a spin on the game page becomes the same
 * wallet call a real aggregator makes (WinBet, over HTTP, to this service's
 * wallet endpoint, with the sandbox agent's credentials), so the whole loop
 * runs on the embedded default: the ledger, the partner's signed
 * callbacks, and the balance coming back.
 */
export const SandboxPlay = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const sql = yield* SqlClient.SqlClient
  const credentials = yield* WalletCredentials
  const server = yield* HttpServer.HttpServer
  const httpClient = (yield* HttpClient.HttpClient).pipe(HttpClient.filterStatusOk)

  // The aggregator calls the operator URL; here that is this very server, on its loopback.
  const ownUrl = NetAddress.isInetAddress(server.address)
    ? server.address._tag === "InetAddressV6" ? `http://[::1]:${server.address.port}` : `http://127.0.0.1:${server.address.port}`
    : "http://127.0.0.1"

  // An id PostgreSQL could not store names no session; it is not sent to the query.
  const findSession = (id: string) =>
    !isStorableText(id)
      ? Effect.succeedNone
      : sql`SELECT id, user_code, game_code, provider, spins FROM sandbox_casino_sessions WHERE id = ${id}`.pipe(
        Effect.flatMap(decodeSessionRows),
        Effect.map((rows) => Option.fromNullishOr(rows[0])),
        Effect.orDie
      )

  const notFound = HttpServerResponse.jsonUnsafe({ message: "This game session does not exist." }, { status: 404 })

  yield* router.add(
    "POST",
    "/sandbox/casino/play/:session/spin",
    Effect.gen(function*() {
      const { session: id } = yield* HttpRouter.params
      const session = yield* findSession(id ?? "")
      if (Option.isNone(session)) return notFound
      const agent = Option.getOrUndefined(credentials.expected)
      if (agent === undefined || agent.agentCode !== "sandbox") {
        return HttpServerResponse.jsonUnsafe({ message: "Spins need the sandbox aggregator (CASINO_GATEWAY=sandbox)." }, {
          status: 409
        })
      }
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = yield* Effect.orElseSucceed(request.json, () => ({}))
      const bet = Schema.decodeUnknownOption(SpinRequest)(body).pipe(Option.flatMap((spin) => Option.fromNullishOr(spin.bet)))
      const stake = Option.getOrElse(bet, () => 1)
      const [{ spins }] = yield* sql<{ spins: number }>`
        UPDATE sandbox_casino_sessions SET spins = spins + 1 WHERE id = ${session.value.id} RETURNING spins
      `.pipe(Effect.orDie)
      const reels = spinReels()
      const win = toAmount(Math.round(parseCents(String(stake))! * payout(reels)))
      const txnId = `sbx-${session.value.id}-${spins}`
      const answer = yield* httpClient.execute(
        HttpClientRequest.post(`${ownUrl}${walletPath}`).pipe(
          HttpClientRequest.bodyJsonUnsafe({
            type: "WinBet",
            user_code: Number(session.value.user_code),
            agent_code: agent.agentCode,
            agent_secret: Redacted.value(agent.agentSecret),
            game_type: "slot",
            game_original: true,
            slot: {
              bet: stake,
              win,
              type: "BASE",
              txn_id: txnId,
              round_id: txnId,
              txn_type: "debit_credit",
              game_code: session.value.game_code,
              provider_code: session.value.provider,
              created_at: new Date().toISOString()
            }
          })
        )
      ).pipe(
        Effect.flatMap((response) => response.json),
        Effect.flatMap(decodeWalletAnswer),
        Effect.timeout("10 seconds"),
        Effect.orDie
      )
      const reason = answer.msg === "" ? null : refusalReasons[answer.msg as Refusal] ?? `Refused by the operator's wallet (${answer.msg}).`
      return HttpServerResponse.jsonUnsafe({
        txn_id: txnId,
        reels,
        bet: stake,
        win: answer.msg === "" ? win : 0,
        ...answer,
        reason
      })
    })
  )

  yield* router.add(
    "GET",
    "/sandbox/casino/play/:session/callbacks",
    Effect.gen(function*() {
      const { session: id } = yield* HttpRouter.params
      const session = yield* findSession(id ?? "")
      if (Option.isNone(session)) return notFound
      // What the partner was sent for this player, and (for the demo partner) what its wallet received.
      const rows = yield* sql<{
        kind: string
        event_id: string
        status: string
        attempts: number
        body: string
        headers: unknown
        answer: unknown
      }>`
        SELECT c.kind, c.event_id, c.status, c.attempts, c.body, e.headers, e.answer
        FROM partner_callbacks c
        JOIN partner_players pp ON pp.id = c.player_id
        LEFT JOIN sandbox_partner_events e ON e.event_id = c.event_id
        WHERE pp.internal_user_id = ${Number(session.value.user_code)}
        ORDER BY c.id DESC
        LIMIT 6
      `.pipe(Effect.orDie)
      return HttpServerResponse.jsonUnsafe({
        callbacks: rows.map((row) => ({
          kind: row.kind,
          event_id: row.event_id,
          status: row.status,
          attempts: row.attempts,
          body: JSON.parse(row.body) as unknown,
          received: row.headers === null ? null : { headers: row.headers, answer: row.answer }
        }))
      })
    })
  )
}, Effect.provide(FetchHttpClient.layer)))
