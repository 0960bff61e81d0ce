/**
 * Reconciliation: a partner reads back its players' wallet transactions and
 * rounds (through the typed client derived from the contract), never
 * another partner's; operators read the same from the admin CLI.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { NotFound } from "../../src/api/Errors.ts"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { eventually, live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { adminCli } from "../support/AdminCli.ts"
import { bearer, errorBody, request, validationErrors } from "../support/TestApp.ts"
import { givenPlayer, givenWalletPartner, refund, WalletApp, winBet } from "../support/WalletApp.ts"

const books = new PartnerBooks()

// The admin CLI in-process, on this file's database (its entry point is proved by test/scripts/admin.test.ts).
const admin = adminCli({ PARTNER_CALLBACK_ALLOW_PRIVATE: "true" })

layer(WalletApp(books), live)("wallet reconciliation", (it) => {
  it.effect("a transaction, its round and its callbacks, for the partner's own players only", () =>
    Effect.gen(function*() {
      const acme = yield* givenWalletPartner(books)
      const other = yield* givenWalletPartner(books)
      const ana = yield* givenPlayer(books, acme.partner.id, "ana", 100)
      yield* givenPlayer(books, other.partner.id, "bo", 100)
      yield* winBet(ana.internalUserId, "rec-1", { bet: 10, win: 4 }, "rec-round")
      yield* refund(ana.internalUserId, "rec-1", "rec-round")
      // Delivered before the partner goes down: on a busy machine its delivery could otherwise meet the outage.
      yield* eventually(
        Effect.sync(() => books.receivedFor(transactionEventId("refund", "rec-1")).length),
        (n) => n === 1,
        "the refund delivered"
      )
      books.behaviour = "down"
      yield* winBet(ana.internalUserId, "rec-2", { bet: 5, win: 0 }).pipe(
        Effect.ensuring(Effect.sync(() => (books.behaviour = "fine")))
      )

      const client = yield* partnerClient(acme.token)
      const both = yield* client.wallet.transaction({ params: { transaction_id: "rec-1" }, query: {} })
      assert.deepStrictEqual(both.data.transactions.map((t) => [t.kind, t.status, t.amount, t.balance_after]), [
        ["bet", "applied", -6, 94],
        ["refund", "applied", 6, 100]
      ])
      const [placed] = both.data.transactions
      assert.deepStrictEqual(placed.player, { external_player_id: "ana", user_code: ana.internalUserId })
      assert.deepStrictEqual(placed.answer, { msg: "", balance: 94 })
      assert.deepStrictEqual(placed.callbacks.map((c) => [c.kind, c.event_id]), [
        ["bet", transactionEventId("bet", "rec-1")],
        ["win", transactionEventId("win", "rec-1")]
      ])
      assert.strictEqual(placed.callbacks[0].status, "delivered")
      const onlyRefund = yield* client.wallet.transaction({
        params: { transaction_id: "rec-1" },
        query: { kind: "refund" }
      })
      assert.deepStrictEqual(onlyRefund.data.transactions.map((t) => t.kind), ["refund"])

      const refused = yield* client.wallet.transaction({ params: { transaction_id: "rec-2" }, query: {} })
      assert.deepInclude(refused.data.transactions[0], {
        status: "refused",
        refusal: "INSUFFICIENT_USER_FUNDS",
        amount: 0
      })
      assert.deepStrictEqual(refused.data.transactions[0].callbacks.map((c) => [c.kind, c.status]).slice(0, 1), [[
        "bet",
        "failed"
      ]])
      assert.strictEqual(refused.data.transactions[0].callbacks[1].kind, "rollback")

      const { rounds } = (yield* client.wallet.round({ params: { round_id: "rec-round" }, query: {} })).data
      assert.deepInclude(rounds[0], {
        round_id: "rec-round",
        status: "refunded",
        bet_total: 10,
        win_total: 4,
        pending_bets: 0
      })
      assert.deepStrictEqual(rounds[0].transactions.map((t) => t.kind), ["bet", "refund"])

      const listed = yield* client.wallet.transactions({ query: { external_player_id: "ana", per_page: 2 } })
      assert.strictEqual(listed.data.meta.total, 3)
      assert.deepStrictEqual(
        listed.data.transactions.map((t) => t.transaction_id),
        ["rec-2", "rec-1"],
        "newest first, paged"
      )
      const refusedOnly = yield* client.wallet.transactions({ query: { status: "refused" } })
      assert.deepStrictEqual(refusedOnly.data.transactions.map((t) => t.transaction_id), ["rec-2"])
      const future = yield* client.wallet.transactions({ query: { from: new Date("2999-01-01T00:00:00Z") } })
      assert.strictEqual(future.data.meta.total, 0)

      // Another partner sees none of it: 404 for the ids, an empty list.
      const stranger = yield* partnerClient(other.token)
      const notTheirs = yield* stranger.wallet.transaction({ params: { transaction_id: "rec-1" }, query: {} }).pipe(
        Effect.flip
      )
      assert.instanceOf(notTheirs, NotFound)
      const noRound = yield* stranger.wallet.round({ params: { round_id: "rec-round" }, query: {} }).pipe(Effect.flip)
      assert.instanceOf(noRound, NotFound)
      assert.strictEqual((yield* stranger.wallet.transactions({ query: {} })).data.meta.total, 0)
      assert.strictEqual(
        (yield* stranger.wallet.transactions({ query: { external_player_id: "ana" } })).data.meta.total,
        0
      )
    }))

  it.effect("bad filters are a 422 naming the field; the lookups need a token", () =>
    Effect.gen(function*() {
      const { token } = yield* givenWalletPartner(books)
      // Filter values the typed client refuses to send, and no token: only the wire carries them.
      const bad = yield* request("GET", "/api/partner/v1/wallet/transactions?status=lost&from=yesterday", {
        headers: bearer(token)
      })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(Object.keys(validationErrors(bad)).sort(), ["from", "status"])
      const anonymous = yield* request("GET", "/api/partner/v1/wallet/transactions/x")
      assert.deepStrictEqual([anonymous.status, errorBody(anonymous).message], [
        401,
        "API key do parceiro nao informada."
      ])
    }))

  it.effect("operators: wallet show and wallet pending in the admin CLI", () =>
    Effect.gen(function*() {
      const { partner } = yield* givenWalletPartner(books)
      const player = yield* givenPlayer(books, partner.id, "cli-player", 50)
      yield* winBet(player.internalUserId, "cli-1", { bet: 5, win: 0 })
      const shown = yield* admin("wallet", "show", "cli-1")
      assert.strictEqual(shown.exitCode, 0, shown.stderr)
      const [entry] = JSON.parse(shown.stdout)
      assert.deepInclude(entry, { partner_id: partner.id, transaction_id: "cli-1", status: "applied", amount: -5 })
      const missing = yield* admin("wallet", "show", "no-such-txn")
      assert.strictEqual(missing.exitCode, 1)
      assert.match(missing.stderr, /No wallet transaction with id "no-such-txn"/)
      const pending = yield* admin("wallet", "pending")
      assert.deepStrictEqual(JSON.parse(pending.stdout), [])
    }))
})
