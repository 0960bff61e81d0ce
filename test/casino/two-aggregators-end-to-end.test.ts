/**
 * Issue 35's "Done when", end to end over real HTTP and real PostgreSQL: one deployment (CASINO_GATEWAY=playfiver,hub88)
 * serves a PlayFiver studio and a Hub88 studio side by side; a partner's player is launched at PlayFiver in BRL and at
 * Hub88 in KWD (three decimals: Hub88's ×100000 is ×100 of its minor unit), and plays both, some calls of the two
 * aggregators at once: PlayFiver's WinBets and a Refund of a round, Hub88's bets and wins of one round, a win after
 * the round closed, a rollback of a bet and a repeat of a bet. Then, in each currency, to the minor unit: the partner's
 * wallet holds its start plus the ledger's applied changes, nothing pending, every notification delivered; each
 * aggregator was last told that balance and its Balance call answers it; and the partner's transaction lookup finds
 * each aggregator's transaction by the id that aggregator gave it.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { signedMinorOf } from "../../src/domain/Money.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { signedByOperator } from "../support/FakeHub88.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import {
  assertHub88Conserved,
  betOf,
  gameCode as hub88Game,
  type Hub88Answer,
  hub88Call,
  type Hub88Player,
  implied,
  rollbackOf,
  winOf
} from "../support/Hub88Wallet.ts"
import { live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { bearer, givenSyncedCatalog, request } from "../support/TestApp.ts"
import { TwoAggregatorsApp } from "../support/TwoAggregators.ts"
import {
  assertConserved,
  balance as pfBalance,
  givenWalletPartner,
  ledgerOf,
  refund as pfRefund,
  walletAnswer,
  winBet
} from "../support/WalletApp.ts"

const books = new PartnerBooks()
const brl = knownCurrency("BRL")!
const kwd = knownCurrency("KWD")!
const external = "two-aggregators-player"
/** What the partner's wallet holds at launch, in each currency: odd units, so a lost or rounded one shows. */
const starts = { BRL: "100.37", KWD: "25.125" } as const
const startMinor = { BRL: 10_037n, KWD: 25_125n } as const

/** A PlayFiver answer's balance (BRL units on the wire) in minor units. */
const pfMinor = (answer: { readonly balance?: number | undefined }) => signedMinorOf(String(answer.balance), brl)!

/** A wire amount of the partner API, in minor units of `currency`. */
const wireMinor = (value: unknown, currency: typeof brl) => signedMinorOf(String(value), currency)!

interface WireEntry {
  readonly transaction_id: string
  readonly kind: string
  readonly status: string
  readonly currency: string
  readonly round_id: string
  readonly bet: number | string
  readonly win: number | string
  readonly amount: number | string
  readonly player: { readonly external_player_id: string; readonly user_code: number }
  readonly callbacks: ReadonlyArray<{ readonly kind: string; readonly status: string }>
}

/** The partner API's lookup of one transaction id (GET /wallet/transactions/{id}), over the wire. */
const lookup = (token: string, txnId: string) =>
  Effect.map(
    request("GET", `/api/partner/v1/wallet/transactions/${encodeURIComponent(txnId)}`, { headers: bearer(token) }),
    (response) => {
      assert.strictEqual(response.status, 200, `${txnId}: ${JSON.stringify(response.body)}`)
      return (response.body as { data: { transactions: ReadonlyArray<WireEntry> } }).data.transactions
    }
  )

layer(TwoAggregatorsApp({ books, hub88Currencies: "BRL,KWD" }), live)("two aggregators end to end", (it) => {
  it.effect("a player plays a PlayFiver studio in BRL and a Hub88 studio in KWD: wallet, ledger and both agree", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const fake = yield* FakeUpstream
      yield* CasinoCatalog.use((catalog) => catalog.setStudioServer("pgsoft", "playfiver"))
      yield* givenSyncedCatalog
      fake.calls.length = 0
      const { partner, token } = yield* givenWalletPartner(books)
      const client = yield* partnerClient(token)

      // The catalogue: a PlayFiver studio and a Hub88 studio side by side, each with its own game.
      const providers = (yield* client.casino.providers()).data.list.map((p) => p.provider)
      assert.includeMembers(providers, ["pg-soft", "crazy-tooth-studio"])
      const pgSoft = (yield* client.casino.games({ query: { provider: "pg-soft" } })).data.games
      assert.include(pgSoft.filter((g) => g.enabled).map((g) => g.game_code), "126")
      const crazyTooth = (yield* client.casino.games({ query: { provider: "crazy-tooth-studio" } })).data.games
      assert.deepStrictEqual(crazyTooth.filter((g) => g.enabled).map((g) => g.game_code), [hub88Game])

      // The same external player launched at each: PlayFiver in BRL, Hub88 in KWD.
      books.balances.set(books.walletOf(external, "BRL"), startMinor.BRL)
      books.balances.set(books.walletOf(external, "KWD"), startMinor.KWD)
      const pfLaunch = yield* client.casino.launch({
        payload: {
          external_player_id: external,
          player_balance: starts.BRL,
          currency: "BRL",
          provider: "pg-soft",
          game_code: "126"
        }
      })
      const hubLaunch = yield* client.casino.launch({
        payload: {
          external_player_id: external,
          player_balance: starts.KWD,
          currency: "KWD",
          provider: "crazy-tooth-studio",
          game_code: hub88Game
        }
      })
      assert.include(pfLaunch.data.launch.url, "https://games.example/launch")
      assert.include(hubLaunch.data.launch.url, `https://games.hub88.example/launch/${hub88Game}`)
      const players = yield* sql<{ id: number; currency: string; user_code: string }>`
        SELECT id, currency, internal_user_id::text AS user_code FROM partner_players
        WHERE partner_id = ${partner.id} AND external_player_id = ${external} ORDER BY currency`
      assert.deepStrictEqual(players.map((row) => row.currency), ["BRL", "KWD"], "a player row of each currency")
      const [brlRow, kwdRow] = players
      const pfUser = Number(brlRow.user_code)
      const hubUser = Number(kwdRow.user_code)
      assert.notStrictEqual(pfUser, hubUser, "a user code of each currency")

      // Each fake got its launch: PlayFiver the BRL player and balance (its currency is the agent's), Hub88 the KWD
      // player and currency, signed with the operator's key (the fake refuses any other).
      const pfSent = fake.calls.filter((call) => call.path === "/api/v2/game_launch")
      assert.strictEqual(pfSent.length, 1)
      assert.deepInclude(pfSent[0].body, { user_code: String(pfUser), game_code: "126", user_balance: 100.37 })
      const hubSent = fake.calls.filter((call) => call.path === "/operator/generic/v2/game/url")
      assert.strictEqual(hubSent.length, 1)
      assert.isTrue(signedByOperator(hubSent[0]), "the Hub88 launch is signed with the operator's key")
      assert.deepInclude(hubSent[0].body, { user: String(hubUser), currency: "KWD", game_code: hub88Game })
      // The token Hub88 got at launch is the one its wallet calls carry.
      const hubToken = String((hubSent[0].body as { token: unknown }).token)

      const hub: Hub88Player = {
        partnerId: partner.id,
        userCode: hubUser,
        user: String(hubUser),
        playerId: kwdRow.id,
        external,
        wallet: books.walletOf(external, "KWD"),
        currency: "KWD",
        start: startMinor.KWD,
        token: hubToken
      }
      const pf = { external, playerId: brlRow.id, start: 100.37, userCode: pfUser }

      const ok = (answer: Hub88Answer, what: string) => {
        assert.strictEqual(answer.status, "RS_OK", `${what}: ${JSON.stringify(answer)}`)
        assert.strictEqual(answer.currency, "KWD", `${what} answered in KWD`)
        return answer
      }
      const pfOk = (response: { readonly status: number; readonly body: unknown }, what: string) => {
        assert.strictEqual(response.status, 200, `${what}: ${JSON.stringify(response.body)}`)
        const answer = walletAnswer(response)
        assert.strictEqual(answer.msg, "", `${what}: ${JSON.stringify(answer)}`)
        return answer
      }

      // PlayFiver, in BRL: two WinBets at once, then a third whose round is refunded.
      const playFiver = Effect.gen(function*() {
        const [lost, won] = yield* Effect.all([
          winBet(pfUser, "pf-1", { bet: 10.5, win: 0 }, "pf-round-1"),
          winBet(pfUser, "pf-2", { bet: 5.25, win: 12.8 }, "pf-round-2")
        ], { concurrency: "unbounded" })
        pfOk(lost, "pf-1")
        pfOk(won, "pf-2")
        pfOk(yield* winBet(pfUser, "pf-3", { bet: 3.33, win: 0 }, "pf-round-3"), "pf-3")
        pfOk(yield* pfRefund(pfUser, "pf-3", "pf-round-3"), "the refund of pf-round-3")
      })

      // Hub88, in KWD: two bets of one round at once, the win closing it, a win after it closed; a bet of another
      // round rolled back while Hub88 repeats the first bet.
      const round1 = { round: "h-round-1" }
      const hub88 = Effect.gen(function*() {
        const bet1 = betOf(hub, "h-bet-1", implied(1_250n, "KWD"), round1)
        const [first] = yield* Effect.all([
          hub88Call("/transaction/bet", bet1),
          hub88Call("/transaction/bet", betOf(hub, "h-bet-2", implied(375n, "KWD"), round1))
        ], { concurrency: "unbounded" }).pipe(
          Effect.map((answers) => answers.map((answer, i) => ok(answer, `h-bet-${i + 1}`)))
        )
        ok(
          yield* hub88Call(
            "/transaction/win",
            winOf(hub, "h-win-1", "h-bet-1", implied(3_005n, "KWD"), { ...round1, round_closed: true })
          ),
          "h-win-1"
        )
        ok(
          yield* hub88Call(
            "/transaction/win",
            winOf(hub, "h-win-2", "h-bet-2", implied(500n, "KWD"), { ...round1, round_closed: true })
          ),
          "h-win-2, after its round closed"
        )
        ok(
          yield* hub88Call("/transaction/bet", betOf(hub, "h-bet-3", implied(2_000n, "KWD"), { round: "h-round-2" })),
          "h-bet-3"
        )
        const [, repeated] = yield* Effect.all([
          hub88Call("/transaction/rollback", rollbackOf(hub, "h-rb-3", "h-bet-3", { round: "h-round-2" })),
          hub88Call("/transaction/bet", bet1)
        ], { concurrency: "unbounded" }).pipe(
          Effect.map(([undone, again]) => [ok(undone, "h-rb-3"), ok(again, "h-bet-1 again")] as const)
        )
        assert.strictEqual(repeated.balance, first.balance, "a repeat of a bet replays its answer")
      })

      // The two aggregators at once.
      yield* Effect.all([playFiver, hub88], { concurrency: "unbounded" })

      // A last play of each, at once: what each aggregator is last told.
      const [pfLast, hubLast] = yield* Effect.all([
        Effect.map(winBet(pfUser, "pf-4", { bet: 1.01, win: 2.02 }, "pf-round-4"), (r) => pfOk(r, "pf-4")),
        Effect.gen(function*() {
          const round3 = { round: "h-round-3" }
          ok(yield* hub88Call("/transaction/bet", betOf(hub, "h-bet-4", implied(125n, "KWD"), round3)), "h-bet-4")
          return ok(
            yield* hub88Call(
              "/transaction/win",
              winOf(hub, "h-win-4", "h-bet-4", implied(251n, "KWD"), { ...round3, round_closed: true })
            ),
            "h-win-4"
          )
        })
      ], { concurrency: "unbounded" })

      // BRL: 100.37 - 10.50 + (12.80 - 5.25) - 3.33 + 3.33 (refunded) + (2.02 - 1.01).
      const brlHeld = yield* assertConserved(books, pf, pfLast)
      assert.strictEqual(brlHeld, 9_843n)
      // KWD: 25.125 - 1.250 - 0.375 + 3.005 + 0.500 - 2.000 + 2.000 (rolled back) - 0.125 + 0.251.
      const { held: kwdHeld, ledger: kwdLedger } = yield* assertHub88Conserved(books, hub, hubLast)
      assert.strictEqual(kwdHeld, 27_131n)
      assert.strictEqual(books.balanceOf(external), brlHeld, "BRL and KWD are wallets of their own")

      // The ledger: each currency's rows are its aggregator's, every one applied.
      const brlLedger = yield* ledgerOf(pf.playerId)
      assert.deepStrictEqual(
        brlLedger.map((row) => [row.txn_id, row.kind, row.status, BigInt(row.amount)]).sort(),
        [
          ["pf-1", "bet", "applied", -1_050n],
          ["pf-2", "bet", "applied", 755n],
          ["pf-3", "bet", "applied", -333n],
          ["pf-3", "refund", "applied", 333n],
          ["pf-4", "bet", "applied", 101n]
        ].sort()
      )
      assert.deepStrictEqual(
        [...kwdLedger].map((row) => [row.txn_id, row.kind, row.status, BigInt(row.amount)]).sort(),
        [
          ["h-bet-1", "bet", "applied", -1_250n],
          ["h-bet-2", "bet", "applied", -375n],
          ["h-win-1", "credit", "applied", 3_005n],
          ["h-win-2", "credit", "applied", 500n],
          ["h-bet-3", "bet", "applied", -2_000n],
          ["h-rb-3", "rollback", "applied", 2_000n],
          ["h-bet-4", "bet", "applied", -125n],
          ["h-win-4", "credit", "applied", 251n]
        ].sort()
      )
      const aggregators = yield* sql<{ currency: string; aggregator: string }>`
        SELECT DISTINCT pp.currency, t.aggregator FROM wallet_transactions t
        JOIN partner_players pp ON pp.id = t.player_id WHERE t.partner_id = ${partner.id} ORDER BY pp.currency`
      assert.deepStrictEqual(aggregators.map((row) => [row.currency, row.aggregator]), [
        ["BRL", "playfiver"],
        ["KWD", "hub88"]
      ])
      // Every callback of the partner delivered (bets included), each asked once; the repeated bet never again.
      const undelivered = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM partner_callbacks c JOIN partner_players pp ON pp.id = c.player_id
        WHERE pp.partner_id = ${partner.id} AND c.status <> 'delivered'`
      assert.strictEqual(undelivered[0].n, 0, "every callback delivered")
      assert.strictEqual(books.receivedFor(transactionEventId("bet", "h-bet-1", "hub88")).length, 1)
      assert.isTrue(books.received.every((callback) => callback.verified), "every callback signed")
      for (const callback of books.received) {
        const currency = callback.body.player?.external_player_id === external ? callback.body.currency : undefined
        assert.include(["BRL", "KWD"], currency, "every callback names its currency")
      }

      // Each aggregator's Balance call answers the partner's balance in its currency.
      assert.strictEqual(pfMinor(pfOk(yield* pfBalance(pfUser), "PlayFiver's Balance")), brlHeld)
      const told = ok(
        yield* hub88Call("/user/balance", { user: hub.user, token: hubToken, game_code: hub88Game }),
        "Hub88's /user/balance"
      )
      assert.strictEqual(told.balance, implied(kwdHeld, "KWD"))
      assert.strictEqual(told.user, hub.user)

      // The partner's reconciliation, per currency: its list's amounts add up to what its wallet moved.
      for (const [code, currency, rows, held] of [["BRL", brl, 5, brlHeld], ["KWD", kwd, 8, kwdHeld]] as const) {
        const listed = yield* request("GET", `/api/partner/v1/wallet/transactions?currency=${code}&per_page=200`, {
          headers: bearer(token)
        })
        assert.strictEqual(listed.status, 200, JSON.stringify(listed.body))
        const entries = (listed.body as { data: { transactions: ReadonlyArray<WireEntry> } }).data.transactions
        assert.strictEqual(entries.length, rows, `${code}: every transaction listed`)
        assert.isTrue(entries.every((entry) => entry.currency === code && entry.status === "applied"))
        const moved = entries.reduce((sum, entry) => sum + wireMinor(entry.amount, currency), 0n)
        assert.strictEqual(startMinor[code] + moved, held, `${code}: start + listed amounts = the partner's wallet`)
      }
      // /status counts each aggregator's wallet transactions of the partner.
      const status = yield* client.account.status()
      assert.deepStrictEqual(status.data.aggregators.map((a) => [a.name, a.wallet_calls]), [
        ["playfiver", 5],
        ["hub88", 8]
      ])

      // The partner's lookup finds each aggregator's transaction by the id that aggregator gave it.
      const [hubWin] = yield* lookup(token, "h-win-1")
      assert.deepInclude(hubWin, { transaction_id: "h-win-1", kind: "credit", status: "applied", currency: "KWD" })
      assert.deepStrictEqual(hubWin.player, { external_player_id: external, user_code: hubUser })
      assert.strictEqual(hubWin.round_id, "h-round-1")
      assert.strictEqual(wireMinor(hubWin.amount, kwd), 3_005n)
      assert.deepStrictEqual(hubWin.callbacks.map((c) => [c.kind, c.status]), [["win", "delivered"]])
      const [hubRollback] = yield* lookup(token, "h-rb-3")
      assert.deepInclude(hubRollback, { kind: "rollback", status: "applied", currency: "KWD" })
      assert.strictEqual(wireMinor(hubRollback.amount, kwd), 2_000n)
      const [pfWon] = yield* lookup(token, "pf-2")
      assert.deepInclude(pfWon, { transaction_id: "pf-2", kind: "bet", status: "applied", currency: "BRL" })
      assert.deepStrictEqual(pfWon.player, { external_player_id: external, user_code: pfUser })
      assert.deepStrictEqual(
        [wireMinor(pfWon.bet, brl), wireMinor(pfWon.win, brl), wireMinor(pfWon.amount, brl)],
        [525n, 1_280n, 755n]
      )
      const refunded = yield* lookup(token, "pf-3")
      assert.deepStrictEqual(
        refunded.map((entry) => [entry.kind, entry.currency, wireMinor(entry.amount, brl)]),
        [["bet", "BRL", -333n], ["refund", "BRL", 333n]]
      )
      // Hub88's kinds narrow a list as PlayFiver's do.
      for (const [kind, ids] of [["credit", ["h-win-1", "h-win-2", "h-win-4"]], ["rollback", ["h-rb-3"]]] as const) {
        const narrowed = yield* request("GET", `/api/partner/v1/wallet/transactions?kind=${kind}&per_page=200`, {
          headers: bearer(token)
        })
        assert.strictEqual(narrowed.status, 200, JSON.stringify(narrowed.body))
        const listed = (narrowed.body as { data: { transactions: ReadonlyArray<WireEntry> } }).data.transactions
        assert.deepStrictEqual(listed.map((entry) => entry.transaction_id).sort(), [...ids], kind)
      }
    }))
})
