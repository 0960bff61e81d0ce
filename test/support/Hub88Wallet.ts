/**
 * Hub88's wallet calls in the tests: the service with HUB88_* set (the keys FakeHub88 makes), calls signed with
 * Hub88's key over the exact body text, launch tokens minted as the service mints them, players in any currency, and
 * conservation against the fake partner's books in the player's currency.
 */
import { assert } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { impliedOfMinor } from "../../src/domain/ImpliedDecimals.ts"
import type { Minor } from "../../src/domain/Money.ts"
import { mintToken, tokenKeyOf } from "../../src/integrations/hub88/Hub88LaunchTokens.ts"
import { signBody } from "../../src/integrations/hub88/Hub88Signature.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import type { PartnerBooks } from "./FakePartner.ts"
import { hub88Keys, operatorKeys } from "./FakeHub88.ts"
import { eventually } from "./live.ts"
import { AnotherInstance, request } from "./TestApp.ts"
import { givenWalletPartner, ledgerOf, WalletApp } from "./WalletApp.ts"
import type { TestSettings } from "./TestApp.ts"

/** The HUB88_* settings of the tests' account: three currencies of 2, 0 and 3 places. */
export const hub88Env = {
  HUB88_BASE_URL: "http://127.0.0.1:9",
  HUB88_OPERATOR_ID: "4242",
  HUB88_PRIVATE_KEY: operatorKeys.privatePem,
  HUB88_PUBLIC_KEY: hub88Keys.publicPem,
  HUB88_CURRENCIES: "BRL,JPY,KWD"
}

/** The configuration Hub88's settings are read from: the process's environment with hub88Env over it. */
const hub88Config = ConfigProvider.layer(ConfigProvider.fromEnv({
  env: { ...(process.env as Record<string, string>), ...hub88Env }
}))

/** WalletApp with Hub88 configured (so its wallet paths are served). */
export const Hub88WalletApp = (books: PartnerBooks, settings: TestSettings = {}) =>
  WalletApp(books, settings).pipe(Layer.provide(hub88Config))

/** A second instance on the test's database with Hub88 configured too: a test sends it calls with its context. */
export const AnotherHub88Instance = () => AnotherInstance().pipe(Layer.provide(hub88Config))

const tokenKey = tokenKeyOf(operatorKeys.privateKey)

/** A launch token for the player's user code, game and currency, valid for an hour (or expired a second ago). */
export const tokenFor = (userCode: number, currency: string, options: { gameCode?: string; expired?: boolean } = {}) =>
  mintToken(
    tokenKey,
    { user: String(userCode), gameCode: options.gameCode ?? gameCode, currency },
    Date.now() + (options.expired === true ? -1_000 : 3_600_000),
    randomBytes(12)
  )

export const gameCode = "clt_dragonrising"

/** The answer on the wire. */
export const Hub88Answer = Schema.Struct({
  user: Schema.String,
  status: Schema.String,
  request_uuid: Schema.String,
  currency: Schema.String,
  balance: Schema.Number
})
export type Hub88Answer = typeof Hub88Answer.Type

let requests = 0

/** A wallet call as Hub88 makes it: `body` (an object, or its exact text) signed with Hub88's key, unless `signature`. */
export const hub88Call = (
  path: "/user/info" | "/user/balance" | "/transaction/bet" | "/transaction/win" | "/transaction/rollback",
  body: Record<string, unknown> | string,
  options: { readonly signature?: string } = {}
) =>
  Effect.gen(function*() {
    const text = typeof body === "string"
      ? body
      : JSON.stringify({ request_uuid: `req-${++requests}`, ...body })
    const response = yield* request("POST", `/aggregator/hub88${path}`, {
      body: text,
      headers: {
        "content-type": "application/json",
        "x-hub88-signature": options.signature ?? signBody(text, hub88Keys.privateKey)
      }
    })
    assert.strictEqual(response.status, 200, `HTTP 200 whatever the status (${JSON.stringify(response.body)})`)
    return Schema.decodeUnknownSync(Hub88Answer)(response.body)
  })

/** A player at a fresh partner in `currency`, its books holding `start` (minor units) on both sides. */
export const givenHub88Player = (books: PartnerBooks, currency: string, start: Minor) =>
  Effect.gen(function*() {
    const created = yield* givenWalletPartner(books)
    const external = `hub88-player-${created.partner.id}`
    const player = yield* (yield* PartnerPlayers).arrive({
      partnerId: created.partner.id,
      environment: "live",
      externalPlayerId: external,
      currency,
      name: null,
      email: null,
      balance: start
    })
    books.balances.set(books.walletOf(external, currency), start)
    const userCode = player.internalUserId
    return {
      partnerId: created.partner.id,
      userCode,
      user: String(userCode),
      playerId: player.id,
      external,
      wallet: books.walletOf(external, currency),
      currency,
      start,
      token: tokenFor(userCode, currency)
    }
  })
export type Hub88Player = Effect.Success<ReturnType<typeof givenHub88Player>>

/** A bet's body (amount already times 100000). */
export const betOf = (
  player: Hub88Player,
  txn: string,
  amount: number,
  extra: Record<string, unknown> = {}
) => ({
  user: player.user,
  token: player.token,
  game_code: gameCode,
  currency: player.currency,
  amount,
  transaction_uuid: txn,
  round: "round-1",
  round_closed: false,
  ...extra
})

export const winOf = (
  player: Hub88Player,
  txn: string,
  bet: string,
  amount: number,
  extra: Record<string, unknown> = {}
) => betOf(player, txn, amount, { reference_transaction_uuid: bet, ...extra })

export const rollbackOf = (player: Hub88Player, txn: string, bet: string, extra: Record<string, unknown> = {}) => ({
  user: player.user,
  token: player.token,
  game_code: gameCode,
  transaction_uuid: txn,
  reference_transaction_uuid: bet,
  round: "round-1",
  round_closed: true,
  ...extra
})

/** Minor units of the player's currency times 100000, as Hub88 writes them. */
export const implied = (minor: Minor, currency: string) =>
  Number(Effect.runSync(Effect.fromResult(impliedOfMinor(minor, knownCurrency(currency)!))))

/**
 * Conservation in the player's currency: once every notification is delivered, the partner's wallet holds its start
 * plus every applied change of the ledger, exactly, nothing is left pending, and (given) the last answer told that.
 */
export const assertHub88Conserved = (books: PartnerBooks, player: Hub88Player, last?: Hub88Answer) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* eventually(
      sql`
        SELECT c.id FROM partner_callbacks c
        WHERE c.player_id = ${player.playerId} AND c.kind <> 'bet' AND c.status <> 'delivered'
      `.pipe(Effect.orDie),
      (rows) => rows.length === 0,
      "every notification delivered"
    )
    const ledger = yield* ledgerOf(player.playerId)
    const applied = ledger.filter((row) => row.status === "applied").reduce((sum, row) => sum + BigInt(row.amount), 0n)
    const held = books.balanceOf(player.wallet)
    assert.strictEqual(held, player.start + applied, "the partner holds its start plus the ledger's applied changes")
    assert.isFalse(ledger.some((row) => row.status === "pending"), "nothing is left pending")
    if (last !== undefined) {
      assert.strictEqual(last.balance, implied(held, player.currency), "the partner holds what Hub88 was last told")
    }
    return { held, ledger }
  })
