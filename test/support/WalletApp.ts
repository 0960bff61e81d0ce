import { assert } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { CallbackWorker } from "../../src/wallet/outbox/CallbackWorker.ts"
import { WalletRecovery } from "../../src/wallet/WalletRecovery.ts"
import type { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { WalletCredentials } from "../../src/integrations/playfiver/WalletCredentials.ts"
import type { Environment } from "../../src/domain/Environment.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { minorOf } from "../../src/domain/Money.ts"

/** A BRL amount as tests write it (`12.5`), in cents. */
const parseCents = (text: string) => minorOf(text, knownCurrency("BRL")!)
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { FakeUpstream } from "./FakeUpstream.ts"
import type { PartnerBooks } from "./FakePartner.ts"
import { eventually } from "./live.ts"
import { bodyAs, request, TestApp, type TestSettings } from "./TestApp.ts"

/** The whole service with its notification worker and bet recovery, and a partner wallet (`books`) on a real port. */
export const WalletApp = (
  books: PartnerBooks,
  settings: TestSettings = {},
  walletRepo?: Layer.Layer<WalletRepo, never, any>
) =>
  Layer.merge(CallbackWorker, WalletRecovery).pipe(
    Layer.provideMerge(TestApp(settings, walletRepo)),
    Layer.provideMerge(FakeUpstream.layer(books.script))
  )

let partners = 0

/** A partner whose callbacks go to the fake wallet, which knows its webhook secret. */
export const givenWalletPartner = (books: PartnerBooks, options: { readonly callbackUrl?: string | null } = {}) =>
  Effect.gen(function*() {
    const fake = yield* FakeUpstream
    const created = yield* Effect.orDie((yield* Partners).create({
      name: `Wallet Partner ${++partners}`,
      callbackUrl: options.callbackUrl === undefined ? `${fake.url}/wallet` : options.callbackUrl
    }))
    books.secrets.add(created.webhookSecret)
    return created
  })

/** A player of the partner, with the same balance in the partner's books; `user_code` is what the aggregator knows. */
export const givenPlayer = (
  books: PartnerBooks,
  partnerId: number,
  externalPlayerId: string,
  balance: number,
  environment: Environment = "live"
) =>
  Effect.gen(function*() {
    const cents = parseCents(String(balance))!
    const player = yield* (yield* PartnerPlayers).arrive({
      partnerId,
      environment,
      externalPlayerId,
      currency: "BRL",
      name: null,
      email: null,
      balance: cents
    })
    books.balances.set(externalPlayerId, cents)
    return player
  })

/**
 * The aggregator wallet protocol's answer (not the partner API: read on the wire): `msg`, empty when done
 * or the refusal's code, and the balance in currency units when there is one.
 */
export const WalletAnswer = Schema.Struct({ msg: Schema.String, balance: Schema.optionalKey(Schema.Number) })

/** A raw wallet answer, read as the protocol says. */
export const walletAnswer = bodyAs(WalletAnswer)

/**
 * A wallet call as the aggregator makes it, with the agent credentials the service expects: the live agent's,
 * or in `test` the sandbox test agent's (the calls of sessions launched with test tokens).
 */
export const walletCall = (body: Record<string, unknown>, environment: Environment = "live") =>
  Effect.gen(function*() {
    const agents = yield* WalletCredentials
    const credentials = Option.getOrThrow(environment === "live" ? agents.expected : agents.test)
    return yield* request("POST", "/aggregator/wallet", {
      json: { agent_code: credentials.agentCode, agent_secret: Redacted.value(credentials.agentSecret), ...body }
    })
  })

export const winBet = (
  userCode: number,
  txnId: string,
  amounts: { readonly bet: number; readonly win: number },
  roundId: string = txnId,
  environment: Environment = "live"
) =>
  walletCall({
    type: "WinBet",
    user_code: userCode,
    user_balance: 0,
    game_type: "slot",
    game_original: true,
    slot: {
      bet: amounts.bet,
      win: amounts.win,
      type: "BASE",
      txn_id: txnId,
      round_id: roundId,
      txn_type: "debit_credit",
      game_code: "ag-hidden-fortune",
      provider_code: "aurora-gaming",
      created_at: "2026-11-22 12:00:00"
    }
  }, environment)

export const refund = (userCode: number, txnId: string, roundId: string, environment: Environment = "live") =>
  walletCall({ type: "Refund", user_code: userCode, slot: { txn_id: txnId, round_id: roundId } }, environment)

export const balance = (userCode: number) => walletCall({ type: "Balance", user_code: userCode })

/** A wallet call whose body is JSON text written by the test (numbers exactly as written), with the agent credentials. */
export const walletCallText = (fields: string) =>
  Effect.gen(function*() {
    const credentials = Option.getOrThrow((yield* WalletCredentials).expected)
    const agent = `"agent_code": ${JSON.stringify(credentials.agentCode)}, "agent_secret": ${
      JSON.stringify(Redacted.value(credentials.agentSecret))
    }`
    return yield* request("POST", "/aggregator/wallet", { body: `{${agent}, ${fields}}` })
  })

/** The player's balance mirror, in cents. */
export const mirrorOf = (playerId: number) =>
  Effect.flatMap(
    Effect.service(SqlClient.SqlClient),
    (sql) => sql<{ balance: string }>`SELECT balance FROM partner_players WHERE id = ${playerId}`
  ).pipe(
    Effect.map((rows) => BigInt(rows[0].balance)),
    Effect.orDie
  )

export interface LedgerRow {
  readonly txn_id: string
  readonly kind: string
  readonly status: string
  readonly refusal: string | null
  readonly note: string | null
  readonly amount: string
  readonly balance_after: string | null
}

export const ledgerOf = (playerId: number) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<LedgerRow>`
      SELECT txn_id, kind, status, refusal, note, amount, balance_after FROM wallet_transactions
      WHERE player_id = ${playerId} ORDER BY id
    `).pipe(Effect.orDie)

/**
 * Conservation, the wallet's one law: once every notification is delivered,
 * the partner's wallet holds what it started with plus every applied change
 * in the ledger, and that is what the aggregator was last told (when given).
 */
export const assertConserved = (
  books: PartnerBooks,
  player: { readonly external: string; readonly playerId: number; readonly start: number },
  lastAnswer?: unknown
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The undelivered notifications with their player's delivery queue (when it is due, how many runs failed, who
    // holds it since when): a failure shows why they were not delivered, not only that.
    yield* eventually(
      sql`
        SELECT c.id, c.kind, c.event_id, c.status, c.attempts, c.last_error, c.created_at, now() AS read_at,
               q.next_attempt_at AS queue_next_attempt_at, q.attempts AS queue_attempts, q.locked_by AS queue_locked_by,
               q.locked_at AS queue_locked_at
        FROM partner_callbacks c
        LEFT JOIN partner_callback_queues q ON q.player_id = c.player_id
        WHERE c.player_id = ${player.playerId} AND c.kind <> 'bet' AND c.status <> 'delivered'
        ORDER BY c.id
      `.pipe(Effect.orDie),
      (rows) => rows.length === 0,
      "every notification delivered"
    )
    const ledger = yield* ledgerOf(player.playerId)
    const applied = ledger.filter((row) => row.status === "applied")
      .reduce((sum, row) => sum + BigInt(row.amount), 0n)
    const held = books.balanceOf(player.external)
    const start = parseCents(String(player.start))!
    assert.strictEqual(held, start + applied, "the partner holds its start plus the ledger's applied changes")
    assert.isFalse(ledger.some((row) => row.status === "pending"), "nothing is left pending")
    if (lastAnswer !== undefined) {
      const told = Schema.decodeUnknownSync(Schema.Struct({ balance: Schema.Number }))(lastAnswer).balance
      assert.strictEqual(held, parseCents(String(told)), "the partner holds what the aggregator was last told")
    }
    return held
  })

/** A fresh partner with one player whose books (on both sides) start at `start`. */
export const givenWalletPlayer = (books: PartnerBooks, start: number) =>
  Effect.gen(function*() {
    const created = yield* givenWalletPartner(books)
    const external = `player-${created.partner.id}`
    const player = yield* givenPlayer(books, created.partner.id, external, start)
    return { ...created, external, userCode: player.internalUserId, playerId: player.id, start }
  })
