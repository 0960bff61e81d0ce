/**
 * Hub88's wallet calls (POST /aggregator/hub88/...) over real HTTP, signed with the test's Hub88 key, relayed by the
 * ledger over PostgreSQL to the fake partner's wallet: every rule of issue 35, each scenario ending with conservation
 * against the partner's books in the player's currency.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { signBody } from "../../src/integrations/hub88/Hub88Signature.ts"
import { operatorKeys } from "../support/FakeHub88.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import {
  assertHub88Conserved,
  betOf,
  gameCode,
  givenHub88Player,
  hub88Call,
  Hub88WalletApp,
  implied,
  rollbackOf,
  tokenFor,
  winOf
} from "../support/Hub88Wallet.ts"
import { live } from "../support/live.ts"
import { ledgerOf } from "../support/WalletApp.ts"
import { ledgerScopeOf, WalletLedger } from "../../src/wallet/WalletLedger.ts"

const books = new PartnerBooks()

layer(Hub88WalletApp(books), live)("Hub88's wallet calls", (it) => {
  it.effect("info and balance answer the partner's balance times 100000; balance needs a valid token", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 10_000n)
      const info = yield* hub88Call("/user/info", { request_uuid: "info-1", user: player.user })
      assert.deepStrictEqual(info, {
        user: player.user,
        status: "RS_OK",
        request_uuid: "info-1",
        currency: "BRL",
        balance: 10_000_000
      })
      const balance = { user: player.user, token: player.token, game_code: gameCode }
      assert.strictEqual((yield* hub88Call("/user/balance", balance)).balance, 10_000_000)
      const expired = { ...balance, token: tokenFor(player.userCode, "BRL", { expired: true }) }
      assert.strictEqual((yield* hub88Call("/user/balance", expired)).status, "RS_ERROR_TOKEN_EXPIRED")
      const otherGame = { ...balance, token: tokenFor(player.userCode, "BRL", { gameCode: "pgs_fortunetiger" }) }
      assert.strictEqual((yield* hub88Call("/user/balance", otherGame)).status, "RS_ERROR_INVALID_TOKEN")
      const stranger = yield* hub88Call("/user/info", { user: "999999999" })
      assert.strictEqual(stranger.status, "RS_ERROR_USER_DISABLED")
    }))

  it.effect("a bet, its repeat answered the same, and every changed copy refused as a duplicate", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 10_000n)
      const other = yield* givenHub88Player(books, "BRL", 10_000n)
      const bet = betOf(player, "h-bet-1", 1_000_000)
      const first = yield* hub88Call("/transaction/bet", bet)
      assert.strictEqual(first.status, "RS_OK")
      assert.strictEqual(first.balance, 9_000_000)
      const again = yield* hub88Call("/transaction/bet", bet)
      assert.deepStrictEqual({ ...again, request_uuid: "" }, { ...first, request_uuid: "" })
      for (
        const changed of [
          { amount: 2_000_000 },
          { round: "round-2" },
          { game_code: "pgs_fortunetiger" },
          { currency: "JPY" }
        ]
      ) {
        const answer = yield* hub88Call("/transaction/bet", { ...bet, ...changed })
        assert.strictEqual(answer.status, "RS_ERROR_DUPLICATE_TRANSACTION", JSON.stringify(changed))
        assert.strictEqual(answer.balance, 9_000_000, "the real balance")
      }
      const otherUser = yield* hub88Call("/transaction/bet", betOf(other, "h-bet-1", 1_000_000))
      assert.strictEqual(otherUser.status, "RS_ERROR_DUPLICATE_TRANSACTION")
      assert.strictEqual(books.receivedFor(transactionEventId("bet", "h-bet-1", "hub88")).length, 1, "asked once")
      const { ledger } = yield* assertHub88Conserved(books, player, again)
      // The ledger's transaction id is Hub88's transaction_uuid: what the partner's callback and lookups carry.
      assert.deepStrictEqual(ledger.map((row) => [row.txn_id, row.amount]), [["h-bet-1", "-1000"]])
      const found = yield* (yield* WalletLedger).transaction(
        ledgerScopeOf({ id: player.partnerId, environment: "live" }),
        "h-bet-1"
      )
      assert.deepStrictEqual(found.map((entry) => [entry.txnId, entry.kind, entry.status]), [[
        "h-bet-1",
        "bet",
        "applied"
      ]])
      yield* assertHub88Conserved(books, other)
    }))

  it.effect("a win pays its bet once; a changed repeat is a duplicate; an unknown or rolled-back bet does not exist", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 10_000n)
      yield* hub88Call("/transaction/bet", betOf(player, "h-w-bet", 500_000))
      const win = winOf(player, "h-w-win", "h-w-bet", 2_500_000)
      const paid = yield* hub88Call("/transaction/win", win)
      assert.deepStrictEqual([paid.status, paid.balance], ["RS_OK", 12_000_000])
      assert.strictEqual((yield* hub88Call("/transaction/win", win)).balance, 12_000_000)
      const changed = [{ amount: 100_000 }, { reference_transaction_uuid: "h-w-other" }, { currency: "KWD" }]
      for (const change of changed) {
        const answer = yield* hub88Call("/transaction/win", { ...win, ...change })
        assert.strictEqual(answer.status, "RS_ERROR_DUPLICATE_TRANSACTION", JSON.stringify(change))
      }
      // One id space for every kind: a win wearing its bet's id, a bet wearing a win's, are used ids.
      const sameId = yield* hub88Call("/transaction/win", winOf(player, "h-w-bet", "h-w-bet", 100_000))
      assert.deepStrictEqual([sameId.status, sameId.balance], ["RS_ERROR_DUPLICATE_TRANSACTION", 12_000_000])
      const betAsWin = yield* hub88Call("/transaction/bet", betOf(player, "h-w-win", 100_000))
      assert.strictEqual(betAsWin.status, "RS_ERROR_DUPLICATE_TRANSACTION")
      const unknown = yield* hub88Call("/transaction/win", winOf(player, "h-w-win-2", "h-never", 100_000))
      assert.deepStrictEqual([unknown.status, unknown.balance], ["RS_ERROR_TRANSACTION_DOES_NOT_EXIST", 12_000_000])

      yield* hub88Call("/transaction/bet", betOf(player, "h-w-bet-2", 1_000_000))
      const undone = yield* hub88Call("/transaction/rollback", rollbackOf(player, "h-w-rb", "h-w-bet-2"))
      assert.deepStrictEqual([undone.status, undone.balance], ["RS_OK", 12_000_000])
      const late = yield* hub88Call("/transaction/win", winOf(player, "h-w-win-3", "h-w-bet-2", 700_000))
      assert.strictEqual(late.status, "RS_ERROR_TRANSACTION_DOES_NOT_EXIST")
      yield* assertHub88Conserved(books, player, late)
    }))

  it.effect("a free bet takes nothing from the player; its win is paid", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 10_000n)
      const free = yield* hub88Call("/transaction/bet", betOf(player, "h-free-bet", 1_000_000, { is_free: true }))
      assert.deepStrictEqual([free.status, free.balance], ["RS_OK", 10_000_000])
      assert.strictEqual(books.receivedFor(transactionEventId("bet", "h-free-bet", "hub88")).length, 0)
      const paid = yield* hub88Call("/transaction/win", winOf(player, "h-free-win", "h-free-bet", 4_000_000))
      assert.deepStrictEqual([paid.status, paid.balance], ["RS_OK", 14_000_000])
      const charged = yield* hub88Call("/transaction/bet", betOf(player, "h-free-bet", 1_000_000))
      assert.strictEqual(charged.status, "RS_ERROR_DUPLICATE_TRANSACTION", "the same id as a paid bet is another bet")
      yield* assertHub88Conserved(books, player, paid)
    }))

  it.effect("a free bet's repeat replays; with another amount it is a duplicate, and nothing moves either way", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 10_000n)
      const free = betOf(player, "h-free-repeat", 1_000_000, { is_free: true })
      const first = yield* hub88Call("/transaction/bet", free)
      assert.deepStrictEqual([first.status, first.balance], ["RS_OK", 10_000_000])
      const again = yield* hub88Call("/transaction/bet", free)
      assert.deepStrictEqual([again.status, again.balance], ["RS_OK", 10_000_000], "the same free bet, replayed")
      for (const amount of [2_000_000, 0]) {
        const changed = yield* hub88Call("/transaction/bet", { ...free, amount })
        assert.deepStrictEqual(
          [changed.status, changed.balance],
          ["RS_ERROR_DUPLICATE_TRANSACTION", 10_000_000],
          `a free bet of ${amount} wearing its id`
        )
      }
      assert.strictEqual(books.receivedFor(transactionEventId("bet", "h-free-repeat", "hub88")).length, 0)
      const { held, ledger } = yield* assertHub88Conserved(books, player, again)
      assert.strictEqual(held, 10_000n, "nothing moved")
      assert.deepStrictEqual(ledger.map((row) => [row.txn_id, row.kind, row.status, row.amount]), [
        ["h-free-repeat", "bet", "applied", "0"]
      ])
    }))

  it.effect("a rollback of a bet never seen is RS_OK and moves nothing; that bet, when it comes, is refused", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 10_000n)
      const early = yield* hub88Call("/transaction/rollback", rollbackOf(player, "h-rb-first", "h-rb-bet"))
      assert.deepStrictEqual([early.status, early.balance], ["RS_OK", 10_000_000])
      const bet = yield* hub88Call("/transaction/bet", betOf(player, "h-rb-bet", 1_000_000))
      assert.deepStrictEqual([bet.status, bet.balance], ["RS_ERROR_DUPLICATE_TRANSACTION", 10_000_000])
      assert.strictEqual(books.receivedFor(transactionEventId("bet", "h-rb-bet", "hub88")).length, 0)
      yield* assertHub88Conserved(books, player, bet)
    }))

  // Hub88 rolls back bets only: a rollback naming a win names no bet the operator can find, which the spec answers RS_OK.
  it.effect("a rollback naming a win is RS_OK and moves nothing: the win stays paid, its bet can still be rolled back", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 10_000n)
      yield* hub88Call("/transaction/bet", betOf(player, "h-rbw-bet", 1_000_000))
      const win = winOf(player, "h-rbw-win", "h-rbw-bet", 3_000_000)
      const paid = yield* hub88Call("/transaction/win", win)
      assert.deepStrictEqual([paid.status, paid.balance], ["RS_OK", 12_000_000])
      const ofWin = rollbackOf(player, "h-rbw-rb", "h-rbw-win")
      const undone = yield* hub88Call("/transaction/rollback", ofWin)
      assert.deepStrictEqual([undone.status, undone.balance], ["RS_OK", 12_000_000], "the win is not taken back")
      assert.strictEqual((yield* hub88Call("/transaction/rollback", ofWin)).balance, 12_000_000, "replayed")
      const again = yield* hub88Call("/transaction/win", win)
      assert.deepStrictEqual([again.status, again.balance], ["RS_OK", 12_000_000], "the win, still paid, replays")
      assert.strictEqual(books.receivedFor(transactionEventId("rollback", "h-rbw-win", "hub88")).length, 0)
      // The bet itself is untouched by it: its own rollback gives the stake back.
      const ofBet = yield* hub88Call("/transaction/rollback", rollbackOf(player, "h-rbw-rb-2", "h-rbw-bet"))
      assert.deepStrictEqual([ofBet.status, ofBet.balance], ["RS_OK", 13_000_000])
      const { ledger } = yield* assertHub88Conserved(books, player, ofBet)
      assert.deepStrictEqual(ledger.map((row) => [row.txn_id, row.kind, row.status, row.note, row.amount]), [
        ["h-rbw-bet", "bet", "applied", null, "-1000"],
        ["h-rbw-win", "credit", "applied", null, "3000"],
        ["h-rbw-rb", "rollback", "applied", "early_rollback", "0"],
        ["h-rbw-rb-2", "rollback", "applied", null, "1000"]
      ])
    }))

  it.effect("a win after the token expired is credited; a bet after it is refused", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 10_000n)
      yield* hub88Call("/transaction/bet", betOf(player, "h-exp-bet", 1_000_000))
      const expired = tokenFor(player.userCode, "BRL", { expired: true })
      const win = yield* hub88Call(
        "/transaction/win",
        winOf(player, "h-exp-win", "h-exp-bet", 3_000_000, { token: expired })
      )
      assert.deepStrictEqual([win.status, win.balance], ["RS_OK", 12_000_000])
      const bet = yield* hub88Call("/transaction/bet", betOf(player, "h-exp-bet-2", 1_000_000, { token: expired }))
      assert.deepStrictEqual([bet.status, bet.balance], ["RS_ERROR_TOKEN_EXPIRED", 12_000_000])
      const forged = yield* hub88Call(
        "/transaction/bet",
        betOf(player, "h-exp-bet-3", 1_000_000, { token: "x".repeat(40) })
      )
      assert.strictEqual(forged.status, "RS_ERROR_INVALID_TOKEN")
      // A rollback comes late too: its token is not looked at.
      const rb = yield* hub88Call(
        "/transaction/rollback",
        rollbackOf(player, "h-exp-rb", "h-exp-bet-2", { token: expired })
      )
      assert.strictEqual(rb.status, "RS_OK")
      yield* assertHub88Conserved(books, player, bet)
    }))

  it.effect("another currency than the player's is refused; too little money answers the real balance", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 10_000n)
      const wrong = yield* hub88Call("/transaction/bet", betOf(player, "h-cur-1", 1_000_000, { currency: "JPY" }))
      assert.deepStrictEqual([wrong.status, wrong.currency, wrong.balance], [
        "RS_ERROR_WRONG_CURRENCY",
        "BRL",
        10_000_000
      ])
      const broke = yield* hub88Call("/transaction/bet", betOf(player, "h-cur-2", 10_100_000))
      assert.deepStrictEqual([broke.status, broke.balance], ["RS_ERROR_NOT_ENOUGH_MONEY", 10_000_000])
      yield* assertHub88Conserved(books, player, broke)
    }))

  it.effect("a bad signature is refused before the body is read: nothing moves", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 10_000n)
      const body = JSON.stringify({ request_uuid: "sig-1", ...betOf(player, "h-sig-1", 1_000_000) })
      const byOperator = yield* hub88Call("/transaction/bet", body, {
        signature: signBody(body, operatorKeys.privateKey)
      })
      assert.deepStrictEqual([byOperator.status, byOperator.balance], ["RS_ERROR_INVALID_SIGNATURE", 0])
      const tampered = yield* hub88Call("/transaction/bet", body.replace("1000000", "1000001"), {
        signature: signBody(body, operatorKeys.privateKey)
      })
      assert.strictEqual(tampered.status, "RS_ERROR_INVALID_SIGNATURE")
      const unsigned = yield* hub88Call("/transaction/bet", body, { signature: "" })
      assert.strictEqual(unsigned.status, "RS_ERROR_INVALID_SIGNATURE")
      const notJson = yield* hub88Call("/transaction/bet", "{not json")
      assert.strictEqual(notJson.status, "RS_ERROR_WRONG_SYNTAX")
      assert.deepStrictEqual(yield* ledgerOf(player.playerId), [])
    }))

  it.effect("amounts with five implied decimals in BRL, JPY and KWD, exact to the minor unit", () =>
    Effect.gen(function*() {
      const cases = [
        { currency: "BRL", start: 10_000n, bet: 1_234n, win: 99n }, // R$ 12.34, R$ 0.99
        { currency: "JPY", start: 50_000n, bet: 777n, win: 1n }, // ¥777, ¥1
        { currency: "KWD", start: 20_000n, bet: 1_250n, win: 3n } // KD 1.250, KD 0.003
      ]
      for (const { bet, currency, start, win } of cases) {
        const player = yield* givenHub88Player(books, currency, start)
        const staked = yield* hub88Call("/transaction/bet", betOf(player, `h-dec-${currency}`, implied(bet, currency)))
        assert.deepStrictEqual([staked.status, staked.currency, staked.balance], [
          "RS_OK",
          currency,
          implied(start - bet, currency)
        ])
        const paid = yield* hub88Call(
          "/transaction/win",
          winOf(player, `h-dec-${currency}-w`, `h-dec-${currency}`, implied(win, currency))
        )
        assert.strictEqual(paid.balance, implied(start - bet + win, currency))
        const { held } = yield* assertHub88Conserved(books, player, paid)
        assert.strictEqual(held, start - bet + win)
      }
    }))

  it.effect("an amount finer than the currency moves nothing and is kept as an unreadable call", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 10_000n)
      const fine = yield* hub88Call("/transaction/bet", betOf(player, "h-fine-1", 1_000_001))
      assert.deepStrictEqual([fine.status, fine.balance], ["RS_ERROR_WRONG_TYPES", 0])
      const yen = yield* givenHub88Player(books, "JPY", 1_000n)
      const half = yield* hub88Call("/transaction/win", winOf(yen, "h-fine-2", "h-none", 50_000))
      assert.strictEqual(half.status, "RS_ERROR_WRONG_TYPES")
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ aggregator: string; txn_id: string; field: string; amount: string; currency: string }>`
        SELECT aggregator, txn_id, field, amount, currency FROM wallet_unreadable_calls
        WHERE txn_id IN ('h-fine-1', 'h-fine-2') ORDER BY txn_id
      `.pipe(Effect.orDie)
      assert.deepStrictEqual(rows.map((row) => ({ ...row })), [
        { aggregator: "hub88", txn_id: "h-fine-1", field: "amount", amount: "1000001", currency: "BRL" },
        { aggregator: "hub88", txn_id: "h-fine-2", field: "amount", amount: "50000", currency: "JPY" }
      ])
      assert.deepStrictEqual(yield* ledgerOf(player.playerId), [])
      yield* assertHub88Conserved(books, player)
      yield* assertHub88Conserved(books, yen)
    }))
})
