/**
 * The partner's ledger group (GET /wallet/...) as the contract states it,
 * without a database or a socket: the real handlers and request validation
 * through HttpApiTest's in-memory client, over the memory wallet repository
 * and outbox, with transactions made by the Wallet service itself. The
 * partner token check is PartnerAuthLive's (tested in test/partners); here a
 * fixed token stands for a partner. Delivery and PostgreSQL are in
 * reconciliation.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { HttpClientRequest, HttpServer } from "effect/http"
import { HttpApiMiddleware, HttpApiTest } from "effect/http-api"
import { PartnerApi } from "../../src/api/Api.ts"
import { NotFound, Unauthorized, ValidationFailed } from "../../src/api/Errors.ts"
import { CurrentPartner, PartnerAuth } from "../../src/api/Security.ts"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { PartnerAccess, type PartnerPlayer } from "../../src/domain/Partner.ts"
import type { PartnerAnswer } from "../../src/domain/Wallet.ts"
import { CallbackTargets } from "../../src/partners/CallbackTargets.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { RequestValidationLive } from "../../src/routes.ts"
import { CallbacksConfig } from "../../src/wallet/CallbacksConfig.ts"
import { WalletHandlers } from "../../src/wallet/http.ts"
import { CallbackOutbox } from "../../src/wallet/outbox/CallbackOutbox.ts"
import { OutboxRepo } from "../../src/wallet/outbox/OutboxRepo.ts"
import { PartnerCallbacks } from "../../src/wallet/outbox/PartnerCallbacks.ts"
import { Wallet } from "../../src/wallet/Wallet.ts"
import { WalletLedger } from "../../src/wallet/WalletLedger.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { testCallbacksConfig } from "../support/TestApp.ts"
import { SpecUpstreams } from "../support/SpecUpstreams.ts"

const at = new Date("2026-11-22T13:00:00.000Z")
const partnerOf = (id: number, slug: string) =>
  new PartnerAccess({
    environment: "live",
    id,
    name: slug,
    slug,
    status: "active",
    commissionPercent: 0,
    callbackUrl: `https://${slug}.example/wallet`,
    rateLimitPerMinute: null,
    rtpPolicy: { mode: "pass" },
    defaultCurrency: null,
    currencies: null,
    createdAt: at,
    updatedAt: at
  })
const acme = partnerOf(1, "acme")
const other = partnerOf(2, "other")
const tokens = new Map([["acme-token", acme], ["other-token", other]])

/** PartnerAuth's server side for these specs: a known token is its partner, anything else 401. */
const PartnerAuthMemory = Layer.succeed(
  PartnerAuth,
  PartnerAuth.of({
    bearer: (httpEffect, { credential }) => {
      const partner = tokens.get(Redacted.value(credential))
      return partner === undefined
        ? Effect.fail(new Unauthorized({ message: "Parceiro invalido ou inativo." }))
        : Effect.provideService(httpEffect, CurrentPartner, partner)
    },
    partnerKey: (_httpEffect, _credential) =>
      Effect.fail(new Unauthorized({ message: "API key do parceiro nao informada." }))
  })
)

/** A partner wallet that takes every stake from a balance of 1000.00. */
const TakingPartner = Layer.succeed(
  PartnerCallbacks,
  PartnerCallbacks.of({
    ask: () => Effect.succeed({ _tag: "Balance", balance: 100_000n } satisfies PartnerAnswer),
    deliver: () => Effect.void,
    send: () => Effect.die("the ledger's handlers send no certification callback")
  })
)

const targets = [acme, other].map((p) => ({
  partnerId: p.id,
  environment: "live" as const,
  partnerSlug: p.slug,
  active: true,
  callbackUrl: p.callbackUrl,
  webhookSecret: "s",
  previousSecret: null
}))

const Services = Layer.mergeAll(Wallet.layer, WalletLedger.layer).pipe(
  Layer.provideMerge(CallbackOutbox.layer),
  Layer.provideMerge(OutboxRepo.layerMemory),
  Layer.provideMerge(WalletRepo.layerMemory),
  Layer.provideMerge(Layer.mergeAll(
    PartnerPlayers.layerMemory,
    CallbackTargets.layerMemory(targets),
    TakingPartner,
    Layer.succeed(CallbacksConfig, testCallbacksConfig())
  ))
)

const Handlers = WalletHandlers.pipe(
  // The wallet group reaches no upstream: the middleware is there for the client's sake (it knows the whole API).
  Layer.provideMerge(Layer.mergeAll(PartnerAuthMemory, SpecUpstreams, RequestValidationLive)),
  Layer.provideMerge(Services),
  Layer.provideMerge(HttpServer.layerServices)
)

const asPartner = (token: string) =>
  HttpApiMiddleware.layerClient(PartnerAuth, ({ next, request }) => next(HttpClientRequest.bearerToken(request, token)))
const client = (token = "acme-token") =>
  HttpApiTest.groups(PartnerApi, ["wallet"]).pipe(Effect.provide(asPartner(token)))

let players = 0
const givenPlayer = (partnerId = acme.id) =>
  Effect.flatMap(
    Effect.service(PartnerPlayers),
    (p) =>
      p.arrive({
        partnerId,
        environment: "live",
        externalPlayerId: `player-${++players}`,
        currency: "BRL",
        name: null,
        email: null,
        balance: 100_000n
      })
  )

const winBet = (player: PartnerPlayer, txnId: string, bet: number, win: number, roundId = txnId) =>
  Effect.flatMap(
    Effect.service(Wallet),
    (wallet) =>
      wallet.handle({
        _tag: "DebitAndCredit",
        aggregator: "sandbox",
        userCode: player.internalUserId,
        txnId,
        roundId,
        bet: BigInt(bet),
        win: BigInt(win),
        gameCode: "g",
        providerCode: "p"
      }, "live")
  )

layer(Handlers)("GET /wallet over memory", (it) => {
  it.effect("a transaction: the envelope, the wire's snake_case, amounts in units, its callbacks", () =>
    Effect.gen(function*() {
      const player = yield* givenPlayer()
      yield* winBet(player, "h-1", 1_000, 450, "h-round")
      const response = yield* (yield* client()).wallet.transaction({ params: { transaction_id: "h-1" }, query: {} })
      assert.isTrue(response.success)
      assert.deepStrictEqual(response.partner, {
        id: 1,
        name: "acme",
        slug: "acme",
        status: "active",
        environment: "live"
      })
      const [entry] = response.data.transactions
      assert.deepInclude(entry, {
        transaction_id: "h-1",
        kind: "bet",
        status: "applied",
        refusal: null,
        note: null,
        round_id: "h-round",
        bet: 10,
        win: 4.5,
        amount: -5.5,
        balance_after: 1004.5,
        settled_at: entry.created_at
      })
      assert.deepStrictEqual(entry.player, {
        external_player_id: player.externalPlayerId,
        user_code: player.internalUserId
      })
      assert.deepStrictEqual(entry.game, { code: "g", provider: "p" })
      assert.deepStrictEqual(entry.answer, { msg: "", balance: 1004.5 })
      assert.match(entry.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      assert.deepStrictEqual(entry.callbacks.map((c) => [c.kind, c.event_id, c.status, c.attempts]), [
        ["bet", transactionEventId("bet", "h-1"), "delivered", 1],
        ["win", transactionEventId("win", "h-1"), "pending", 0]
      ])
      assert.strictEqual(entry.callbacks[0].delivered_at, entry.callbacks[0].created_at)
      assert.isNull(entry.callbacks[1].delivered_at)
    }))

  it.effect("GET /wallet/transactions: newest first, paged, with the total; filters narrow it", () =>
    Effect.gen(function*() {
      const player = yield* givenPlayer()
      for (const n of [1, 2, 3]) yield* winBet(player, `page-${n}`, 100 * n, 0)
      const api = yield* client()
      const first = yield* api.wallet.transactions({
        query: { external_player_id: player.externalPlayerId, per_page: 2 }
      })
      assert.deepStrictEqual(first.data.meta, { page: 1, per_page: 2, total: 3 })
      assert.deepStrictEqual(first.data.transactions.map((t) => t.transaction_id), ["page-3", "page-2"])
      const second = yield* api.wallet.transactions({
        query: { external_player_id: player.externalPlayerId, per_page: 2, page: 2 }
      })
      assert.deepStrictEqual(second.data.transactions.map((t) => t.transaction_id), ["page-1"])
      const beyond = yield* api.wallet.transactions({
        query: { external_player_id: player.externalPlayerId, page: 9 }
      })
      assert.deepStrictEqual([beyond.data.transactions.length, beyond.data.meta.total], [0, 3])
      const refunds = yield* api.wallet.transactions({
        query: { external_player_id: player.externalPlayerId, kind: "refund" }
      })
      assert.strictEqual(refunds.data.meta.total, 0)
      const unknownPlayer = yield* api.wallet.transactions({ query: { external_player_id: "nobody" } })
      assert.strictEqual(unknownPlayer.data.meta.total, 0)
      const future = yield* api.wallet.transactions({ query: { from: new Date("2999-01-01T00:00:00Z") } })
      assert.strictEqual(future.data.meta.total, 0)
    }))

  it.effect("GET /wallet/transactions?currency=: only that currency's entries; a known code without rows is empty", () =>
    Effect.gen(function*() {
      const brl = yield* givenPlayer()
      const jpy = yield* (yield* PartnerPlayers).arrive({
        partnerId: acme.id,
        environment: "live",
        externalPlayerId: brl.externalPlayerId,
        currency: "JPY",
        name: null,
        email: null,
        balance: 100_000n
      })
      yield* winBet(brl, "cur-brl", 1_000, 450)
      yield* winBet(jpy, "cur-jpy", 1_250, 0)
      const api = yield* client()
      const of = (currency?: string) =>
        Effect.map(
          api.wallet.transactions({ query: { external_player_id: brl.externalPlayerId, currency } }),
          (answer) => answer.data.transactions.map((t) => [t.transaction_id, t.currency, t.bet, t.win])
        )
      assert.deepStrictEqual(yield* of("JPY"), [["cur-jpy", "JPY", 1250, 0]])
      assert.deepStrictEqual(yield* of("BRL"), [["cur-brl", "BRL", 10, 4.5]])
      assert.deepStrictEqual((yield* of()).map(([id]) => id), ["cur-jpy", "cur-brl"])
      // A code this service knows (enabled or not) with no rows: an empty page, not an error.
      const none = yield* api.wallet.transactions({ query: { currency: "EUR", external_player_id: "player-1" } })
      assert.deepStrictEqual([none.data.transactions, none.data.meta.total], [[], 0])
      assert.strictEqual((yield* api.wallet.transactions({ query: { currency: "BTC" } })).data.meta.total, 0)
    }))

  it.effect("GET /wallet/rounds/:round_id: the round with its transactions", () =>
    Effect.gen(function*() {
      const player = yield* givenPlayer()
      yield* winBet(player, "r-1", 1_000, 0, "h-round-2")
      yield* winBet(player, "r-2", 500, 2_000, "h-round-2")
      const { rounds } = (yield* (yield* client()).wallet.round({ params: { round_id: "h-round-2" }, query: {} })).data
      assert.strictEqual(rounds.length, 1)
      assert.deepInclude(rounds[0], {
        round_id: "h-round-2",
        status: "settled",
        pending_bets: 0,
        bet_total: 15,
        win_total: 20,
        refunded_early: false
      })
      assert.deepStrictEqual(rounds[0].transactions.map((t) => t.transaction_id), ["r-1", "r-2"])
    }))

  it.effect("unknown ids, and another partner's, are 404 with the contract's message", () =>
    Effect.gen(function*() {
      const player = yield* givenPlayer()
      yield* winBet(player, "mine-1", 100, 0, "mine-round")
      const stranger = yield* client("other-token")
      const notTheirs = yield* Effect.flip(
        stranger.wallet.transaction({ params: { transaction_id: "mine-1" }, query: {} })
      )
      assert.instanceOf(notTheirs, NotFound)
      assert.strictEqual((notTheirs as NotFound).message, "Transaction not found.")
      const noRound = yield* Effect.flip(stranger.wallet.round({ params: { round_id: "mine-round" }, query: {} }))
      assert.instanceOf(noRound, NotFound)
      assert.strictEqual((noRound as NotFound).message, "Round not found.")
      const none = yield* Effect.flip(
        (yield* client()).wallet.transaction({ params: { transaction_id: "no-such" }, query: {} })
      )
      assert.instanceOf(none, NotFound)
      assert.strictEqual((yield* stranger.wallet.transactions({ query: {} })).data.meta.total, 0)
    }))

  it.effect("bad filters and a transaction id that is no storable text are a 422 naming each field", () =>
    Effect.gen(function*() {
      // Values the typed client refuses to send: the request it encoded is sent with the raw query or path.
      const raw = (path: string) =>
        HttpApiTest.groups(PartnerApi, ["wallet"]).pipe(Effect.provide(HttpApiMiddleware.layerClient(
          PartnerAuth,
          ({ next, request }) =>
            next(HttpClientRequest.bearerToken(HttpClientRequest.setUrl(request, path), "acme-token"))
        )))
      const filters = yield* Effect.flip(
        (yield* raw("/api/partner/v1/wallet/transactions?status=lost&from=yesterday")).wallet.transactions({
          query: {}
        })
      )
      assert.instanceOf(filters, ValidationFailed)
      assert.deepStrictEqual(Object.keys((filters as ValidationFailed).errors).sort(), ["from", "status"])
      // Not a currency code (codes are case-sensitive; a pattern alone is not enough): the contract's 422 naming it.
      for (const code of ["brl", "EURO", "XYZ", "", "B%20RL"]) {
        const currency = yield* Effect.flip(
          (yield* raw(`/api/partner/v1/wallet/transactions?currency=${code}`)).wallet.transactions({ query: {} })
        )
        assert.instanceOf(currency, ValidationFailed, code)
        assert.deepStrictEqual((currency as ValidationFailed).errors, {
          currency: [
            "The selected currency is invalid. Use a currency code such as BRL, EUR or BTC (codes are case-sensitive: mBTC)."
          ]
        }, code)
      }
      const id = yield* Effect.flip(
        (yield* raw("/api/partner/v1/wallet/transactions/bad%00id")).wallet.transaction({
          params: { transaction_id: "x" },
          query: {}
        })
      )
      assert.instanceOf(id, ValidationFailed)
      assert.deepStrictEqual(Object.keys((id as ValidationFailed).errors), ["transaction_id"])
    }))

  it.effect("an unknown token is 401", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip((yield* client("nope")).wallet.transactions({ query: {} }))
      assert.instanceOf(error, Unauthorized)
    }))

  it.effect("a partner with no such player reads nothing: its own list stays empty", () =>
    Effect.gen(function*() {
      const theirs = yield* givenPlayer(other.id)
      yield* winBet(theirs, "theirs-1", 100, 0)
      const mine = yield* (yield* client()).wallet.transactions({
        query: { external_player_id: theirs.externalPlayerId }
      })
      assert.strictEqual(mine.data.meta.total, 0)
      assert.deepStrictEqual(mine.data.transactions, [])
    }))
})
