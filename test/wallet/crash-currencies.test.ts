/**
 * A crash in a currency other than the home one: an instance of the service (src/main.ts, a process of its own) is
 * killed (SIGKILL) while the partner holds a JPY (or BTC) player's stake, and another instance on the same database
 * carries on. After recovery the partner holds exactly its start plus the ledger's applied amounts in that currency,
 * the callbacks said that currency and its amounts as the aggregator wrote them, and the same player's BRL row (its
 * balance at the partner, its mirror, its ledger) is untouched.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { amountOnWire, minorOf } from "../../src/domain/Money.ts"
import { givenCrashPartner, startCrashService } from "../support/CrashPartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { eventually, live } from "../support/live.ts"

const books = new PartnerBooks()

interface Case {
  readonly currency: string
  readonly start: string
  /** The stake the killed instance leaves pending. */
  readonly stake: string
  /** A round the second instance plays to the end: its stake and win. */
  readonly bet: string
  readonly win: string
}

const cases: ReadonlyArray<Case> = [
  { currency: "JPY", start: "10000", stake: "1500", bet: "700", win: "2000" },
  { currency: "BTC", start: "0.5", stake: "0.00000001", bet: "0.12345678", win: "0.00000003" }
]

const given = (c: Case) =>
  Effect.gen(function*() {
    const external = `crash-${c.currency}-player`
    const crash = yield* givenCrashPartner(books, `crash-${c.currency.toLowerCase()}`, external, c.start, c.currency)
    const brl = yield* crash.givenRow("50", "BRL")
    const service = (env: Record<string, string> = {}) =>
      startCrashService(crash.databaseUrl, { CRYPTO_CURRENCIES: "BTC", ...env })
    const first = yield* service({ PARTNER_CALLBACK_TIMEOUT: "60 seconds", WALLET_PENDING_TIMEOUT: "120 seconds" })
    const [agent] = yield* crash.sql<{ value: string }>`
      SELECT value FROM service_secrets WHERE name = 'sandbox_agent_secret'
    `
    // Amounts as strings: every scale travels as written (a JSON number would print a satoshi as 1e-8).
    const winBet = (url: string, txnId: string, bet: string, win: string) =>
      Effect.promise(() =>
        fetch(`${url}/aggregator/wallet`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            type: "WinBet",
            user_code: crash.userCode,
            agent_code: "sandbox",
            agent_secret: agent.value,
            slot: { txn_id: txnId, round_id: txnId, bet, win, game_code: "g", provider_code: "p" }
          })
        }).then((response) => response.status === 200 ? response.json() : { status: response.status })
      )
    return { ...crash, brl, external, first, service, winBet }
  })

const crashTest = (c: Case) =>
  Effect.gen(function*() {
    const currency = knownCurrency(c.currency)!
    const minor = (text: string) => minorOf(text, currency)!
    const wire = (amount: bigint) => amountOnWire(amount, currency)
    const { brl, external, first, playerId, service, sql, winBet } = yield* given(c)
    const held = () => books.balanceOf(books.walletOf(external, c.currency))
    const brlHeld = () => books.balanceOf(books.walletOf(external, "BRL"))
    const start = minor(c.start)

    books.behaviour = "slow"
    books.delayMillis = 30_000
    const txnId = `killed-${c.currency}-1`
    const unanswered = yield* Effect.forkChild(winBet(first.url, txnId, c.stake, "0"))
    const bet = transactionEventId("bet", txnId)
    yield* eventually(Effect.sync(() => books.receivedFor(bet).length), (n) => n === 1, "the bet at the partner")
    assert.strictEqual(held(), start - minor(c.stake), "the partner took the stake, in its currency")
    process.kill(Number(first.handle.pid), "SIGKILL")
    yield* Effect.ignore(Fiber.await(unanswered))
    books.behaviour = "fine"
    const [left] = yield* sql<{ status: string }>`SELECT status FROM wallet_transactions WHERE txn_id = ${txnId}`
    assert.strictEqual(left.status, "pending", "the killed instance left its bet pending")

    const second = yield* service({ WALLET_PENDING_TIMEOUT: "3 seconds", PARTNER_CALLBACK_TIMEOUT: "1 second" })
    // The aggregator's retry at the living instance: the bet pending since the kill is settled refused.
    const retried = yield* winBet(second.url, txnId, c.stake, "0")
    assert.deepStrictEqual(retried, { msg: "INSUFFICIENT_USER_FUNDS", balance: wire(start) }, second.output.join("\n"))
    const rollback = transactionEventId("rollback", txnId)
    yield* eventually(
      sql<{ status: string }>`SELECT status FROM partner_callbacks WHERE event_id = ${rollback}`,
      (rows) => rows[0]?.status === "delivered",
      "the rollback delivered"
    )
    const [rolledBack] = books.receivedFor(rollback)
    assert.strictEqual(rolledBack.body.currency, c.currency)
    assert.strictEqual(String(rolledBack.body.amount), c.stake, "the stake given back as the aggregator wrote it")
    assert.strictEqual(held(), start, "the partner holds its start again")

    // The living instance plays on in the currency: a round to its end, paid once.
    const played = `played-${c.currency}-1`
    const answered = yield* winBet(second.url, played, c.bet, c.win)
    const after = start - minor(c.bet) + minor(c.win)
    assert.deepStrictEqual(answered, { msg: "", balance: wire(after) })
    const win = transactionEventId("win", played)
    yield* eventually(Effect.sync(() => books.applied.includes(win)), (paid) => paid, "the win paid")

    // Conservation in the currency: nothing pending, every notification delivered, start plus the applied amounts.
    yield* eventually(
      sql<{ n: number }>`
        SELECT count(*)::int AS n FROM partner_callbacks
        WHERE player_id = ${playerId} AND kind <> 'bet' AND status <> 'delivered'
      `,
      (rows) => rows[0].n === 0,
      "every notification delivered"
    )
    const ledger = yield* sql<
      { txn_id: string; status: string; note: string | null; amount: string; currency: string }
    >`
      SELECT txn_id, status, note, amount::text, currency FROM wallet_transactions WHERE player_id = ${playerId}
      ORDER BY id
    `
    assert.deepStrictEqual(ledger.map((row) => [row.txn_id, row.status, row.note, row.currency]), [
      [txnId, "refused", "recovered", c.currency],
      [played, "applied", null, c.currency]
    ])
    const applied = ledger.filter((row) => row.status === "applied").reduce((sum, row) => sum + BigInt(row.amount), 0n)
    assert.strictEqual(held(), start + applied, "the partner holds its start plus the ledger's applied amounts")
    assert.strictEqual(held(), after, "which is what the aggregator was last told")
    assert.strictEqual(books.applied.filter((id) => id === win).length, 1, "the win paid once")

    // The same player's BRL row: untouched on both sides.
    assert.strictEqual(brlHeld(), 5_000n, "the partner's BRL balance is untouched")
    const [brlRow] = yield* sql<
      { balance: string }
    >`SELECT balance::text FROM partner_players WHERE id = ${brl.playerId}`
    assert.strictEqual(brlRow.balance, "5000", "the BRL mirror is untouched")
    const brlTouched = yield* sql<{ n: number }>`
      SELECT (SELECT count(*) FROM wallet_transactions WHERE player_id = ${brl.playerId})::int
           + (SELECT count(*) FROM partner_callbacks WHERE player_id = ${brl.playerId})::int AS n
    `
    assert.strictEqual(brlTouched[0].n, 0, "no BRL transaction or callback")
    assert.isTrue(books.received.every((callback) => callback.body.currency === c.currency), "only its currency")
  }).pipe(Effect.scoped, Effect.ensuring(Effect.sync(() => books.reset())))

layer(Layer.merge(FakeUpstream.layer(books.script), NodeServices.layer), live)("a crash in a currency", (it) => {
  for (const c of cases) {
    it.effect(
      `${c.currency}: an instance killed while the partner holds the stake; recovery gives it back in ${c.currency}`,
      () => crashTest(c),
      { timeout: 120_000 }
    )
  }
})
