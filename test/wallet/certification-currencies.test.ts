/**
 * Wallet certification in the test player's currency, end to end over real HTTP and PostgreSQL: runs in JPY (the
 * partner's default) and BTC (named by the caller), their amounts scaled to the currency, against the sandbox partner
 * wallet and fake wallets that keep each currency apart, mix them, or answer balances finer than the currency has.
 * No run writes a ledger row.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option } from "effect"
import type { Certification } from "../../src/domain/Certification.ts"
import { type CaseKey, caseKeys, cases } from "../../src/domain/CertificationCaseTexts.ts"
import { ValidationFailed } from "../../src/client/PartnerClient.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { Certifications } from "../../src/wallet/certification/Certifications.ts"
import { certify, failedCases, failedReasons, givenTestWallet, ledgerRows } from "../support/CertificationWallet.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { eventually, live } from "../support/live.ts"
import { failsWith, partnerClient } from "../support/PartnerClient.ts"
import { TestApp } from "../support/TestApp.ts"

const books = new PartnerBooks()
/** Far above any answer here (see certification.test.ts). */
const timeout = Duration.seconds(10)

/** A deployment whose default currency (every partner's, for now) is JPY, with BTC enabled. */
const YenApp = TestApp({ callbacks: { timeout }, currencies: { crypto: ["BTC"], defaultCurrency: "JPY" } }).pipe(
  Layer.provideMerge(FakeUpstream.layer(books.script))
)

layer(YenApp, live)("wallet certification in the test player's currency", (it) => {
  const caseOf = (run: Certification, key: CaseKey) => run.cases.find((result) => result.key === key)!
  /** The bodies a case sent, as the wallet read them. */
  const bodiesOf = (run: Certification, key: CaseKey) =>
    caseOf(run, key).exchanges.map((exchange) => JSON.parse(exchange.request.body))

  it.effect("in JPY, the partner's default, the sandbox partner wallet passes every case, its amounts in whole yen", () =>
    Effect.gen(function*() {
      books.faults.clear()
      const { external, partner, test } = yield* givenTestWallet(books, "sandbox", "JPY", 5_000n)
      const client = yield* partnerClient(test.token)
      const started =
        (yield* client.certifications.start({ payload: { external_player_id: external } })).data.certification
      assert.strictEqual(started.currency, "JPY")
      const done = (yield* eventually(
        client.certifications.show({ params: { certification_id: started.id }, query: {} }),
        (answer) => answer.data.certification.status !== "running",
        "the run's end"
      )).data.certification
      assert.strictEqual(
        done.status,
        "passed",
        JSON.stringify(done.cases.filter((result) => result.status !== "passed"))
      )
      assert.strictEqual(done.currency, "JPY")
      // A bet of 1.00 is 1 yen; the float of 100.00 is 100 yen; balances are whole yen with the code.
      const bet = done.cases.find((result) => result.key === "bet")!
      assert.deepStrictEqual([bet.balance_before, bet.expected_balance, bet.balance_after], [5_100, 5_099, 5_099])
      assert.strictEqual(bet.exchanges[0].label, `bet 1 JPY (round ${started.id}_bet)`)
      assert.strictEqual(bet.exchanges[0].reading, "balance 5099 JPY")
      assert.strictEqual(bet.exchanges[0].response?.body, "{\"balance\":5099}")
      assert.include(bet.checks, "A bet of 1 JPY")
      const run = Option.getOrThrow(yield* (yield* Certifications).find(started.id, partner.id))
      assert.deepInclude(bodiesOf(run, "bet")[0], { kind: "bet", amount: 1, currency: "JPY" })
      assert.deepInclude(bodiesOf(run, "win")[0], { kind: "win", amount: 100, currency: "JPY" })
      // To the minor unit: 12 yen and 34 yen, a win of 7, refunded 39.
      const fine = bodiesOf(run, "two_decimals")
      assert.deepStrictEqual(
        fine.filter((body) => body.kind !== "balance").map((body) => [body.kind, body.amount, body.currency]),
        [["bet", 46, "JPY"], ["win", 7, "JPY"], ["refund", 39, "JPY"]]
      )
      // The other currency's bet is in EUR, for a player the sandbox wallet holds no EUR of.
      const other = caseOf(run, "other_currency")
      assert.deepInclude(JSON.parse(other.exchanges[0].request.body), { kind: "bet", amount: 1, currency: "EUR" })
      assert.strictEqual(other.exchanges[0].reading, "refused: unknown player")
      assert.deepStrictEqual([caseOf(run, "conservation").expectedBalance, caseOf(run, "conservation").balanceAfter], [
        5_000n,
        5_000n
      ])
      // A player with no JPY row is not a test player of a JPY run, whatever other currency it holds.
      yield* (yield* PartnerPlayers).arrive({
        partnerId: partner.id,
        environment: "test",
        externalPlayerId: "reais-only",
        currency: "BRL",
        name: null,
        email: null,
        balance: 5_000n
      })
      const refused = yield* failsWith(ValidationFailed)(
        client.certifications.start({ payload: { external_player_id: "reais-only" } })
      )
      assert.match(
        refused.errors.external_player_id[0],
        /"reais-only" is not one of this partner's test players in JPY/
      )
      assert.strictEqual(yield* ledgerRows(partner.id), 0)
    }))

  it.effect("in BTC, named by the caller, the sandbox partner wallet passes every case, amounts in satoshis and on the wire as decimal strings", () =>
    Effect.gen(function*() {
      books.faults.clear()
      // 0.5 BTC, and 50 yen of the same player, which a BTC run never touches.
      const { external, partner, test } = yield* givenTestWallet(books, "sandbox", "BTC", 50_000_000n)
      yield* (yield* PartnerPlayers).arrive({
        partnerId: partner.id,
        environment: "test",
        externalPlayerId: external,
        currency: "JPY",
        name: null,
        email: null,
        balance: 50n
      })
      const run = yield* certify(partner.id, external, "BTC")
      assert.deepStrictEqual(
        failedCases(run),
        [],
        failedReasons(run).join("; ")
      )
      assert.strictEqual(run.status, "passed")
      assert.strictEqual(run.currency, "BTC")
      const bet = caseOf(run, "bet")
      assert.deepStrictEqual([bet.balanceBefore, bet.expectedBalance, bet.balanceAfter], [
        10_050_000_000n,
        9_950_000_000n,
        9_950_000_000n
      ])
      assert.strictEqual(bet.exchanges[0].reading, "balance 99.50000000 BTC")
      assert.deepInclude(bodiesOf(run, "bet")[0], { kind: "bet", amount: "1.00000000", currency: "BTC" })
      const fine = bodiesOf(run, "two_decimals")
      assert.deepStrictEqual(
        fine.filter((body) => body.kind !== "balance").map((body) => [body.kind, body.amount]),
        [["bet", "12.00000034"], ["win", "0.00000007"], ["refund", "12.00000027"]]
      )
      const otherBody = caseOf(run, "other_body").exchanges[0].label
      assert.strictEqual(otherBody, "bet 1.00000000 BTC carrying the signature of the same bet of 10.00000001 BTC")
      assert.deepStrictEqual(caseOf(run, "conservation").balanceAfter, 50_000_000n)
      // The report writes BTC balances as decimal strings, which no JSON reader rounds.
      const client = yield* partnerClient(test.token)
      const report =
        (yield* client.certifications.show({ params: { certification_id: run.id }, query: {} })).data.certification
      const wireBet = report.cases.find((result) => result.key === "bet")!
      assert.deepStrictEqual([wireBet.balance_before, wireBet.expected_balance, wireBet.balance_after], [
        "100.50000000",
        "99.50000000",
        "99.50000000"
      ])
      // The same player's yen were never asked for nor moved.
      const yen = yield* (yield* PartnerPlayers).find(partner.id, "test", external, "JPY")
      assert.strictEqual(Option.getOrThrow(yen).balance, 50n)
      assert.isTrue(
        run.cases.flatMap((result) => result.exchanges).every((exchange) =>
          JSON.parse(exchange.request.body).currency !== "JPY"
        )
      )
    }))

  for (const currency of ["JPY", "BTC"] as const) {
    const start = currency === "JPY" ? 5_000n : 50_000_000n

    it.effect(`in ${currency}, a fake wallet that keeps each currency apart passes every case`, () =>
      Effect.gen(function*() {
        books.knownPlayersOnly = true
        books.faults.clear()
        const { external, partner } = yield* givenTestWallet(books, "fake", currency, start)
        const run = yield* certify(partner.id, external, currency)
        assert.deepStrictEqual(
          failedCases(run),
          [],
          failedReasons(run).join("; ")
        )
        assert.strictEqual(books.balanceOf(books.walletOf(external, currency)), start)
      }))

    it.effect(`in ${currency}, a wallet that mixes currencies fails Another currency, and only it`, () =>
      Effect.gen(function*() {
        books.knownPlayersOnly = true
        books.faults.clear()
        books.faults.add("mixes-currencies")
        const { external, partner } = yield* givenTestWallet(books, "fake", currency, start)
        const run = yield* certify(partner.id, external, currency).pipe(
          Effect.ensuring(Effect.sync(() => books.faults.clear()))
        )
        assert.deepStrictEqual(failedCases(run), ["other_currency"])
        const reason = caseOf(run, "other_currency").reason!
        // 1.00 EUR taken from the run's balance, read in the run's currency: 100 minor units of it.
        const took = currency === "JPY" ? "-100 JPY" : "-0.00000100 BTC"
        assert.include(reason, `In ${currency} after the bet of 1.00 EUR the balance is`)
        assert.include(reason, `(${took})`)
        assert.include(reason, `Fault caught: ${cases.other_currency.catches}.`)
      }))

    it.effect(`in ${currency}, a wallet that answers a balance finer than ${currency} has fails Balance, saying so, and the run stops`, () =>
      Effect.gen(function*() {
        books.knownPlayersOnly = true
        books.faults.clear()
        books.faults.add("answers-finer-balance")
        const { external, partner } = yield* givenTestWallet(books, "fake", currency, start)
        const run = yield* certify(partner.id, external, currency).pipe(
          Effect.ensuring(Effect.sync(() => books.faults.clear()))
        )
        assert.deepStrictEqual(failedCases(run), ["balance"])
        assert.strictEqual(run.status, "failed")
        const exponent = currency === "JPY" ? 0 : 8
        const stated = currency === "JPY" ? "5000.5" : "0.500000005"
        assert.include(
          caseOf(run, "balance").reason!,
          `The balance was answered: no usable answer: The partner's balance ${stated} has more decimals than ` +
            `${currency} has (${exponent}).`
        )
        assert.strictEqual(run.cases.filter((result) => result.status === "skipped").length, caseKeys.length - 2)
        assert.strictEqual(books.balanceOf(books.walletOf(external, currency)), start)
      }))
  }
})
