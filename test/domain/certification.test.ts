/**
 * The wallet certification's rules without a database: how answer times are judged against the time-out, how a
 * run ends from its cases, when a live token is withheld, and what a certification callback's body looks like.
 */
import { assert, describe, it } from "@effect/vitest"
import { betBody } from "../../src/domain/Callbacks.ts"
import { storedCurrency } from "../../src/domain/Currency.ts"
import {
  answerReading,
  certificationBody,
  certificationEventId,
  compared,
  type Exchange,
  isCertificationId,
  keptBody,
  keptBodyBytes,
  liveTokenIssuerRefusal,
  liveTokenRefusal,
  newCertificationId,
  outcome,
  percentile,
  timingOf,
  timingProblems
} from "../../src/domain/Certification.ts"
import {
  amountText,
  caseAmounts,
  caseChecks,
  caseKeys,
  cases,
  failureReason
} from "../../src/domain/CertificationCaseTexts.ts"

const exchange = (millis: number): Exchange => ({
  label: "balance",
  sentAt: new Date(0),
  millis,
  request: { headers: {}, body: "{}", bodyBytes: 2 },
  response: { status: 200, body: "{\"balance\":1}", bodyBytes: 13 },
  error: null,
  reading: "balance 1.00"
})

describe("wallet certification rules", () => {
  it("a body is kept to its first 2 KiB, cut before a character rather than through it, with its whole size", () => {
    assert.deepStrictEqual(keptBody("{}"), { body: "{}", bodyBytes: 2 })
    const exact = "x".repeat(keptBodyBytes)
    assert.deepStrictEqual(keptBody(exact), { body: exact, bodyBytes: keptBodyBytes })
    const long = keptBody("x".repeat(60_000))
    assert.deepStrictEqual([long.body.length, long.bodyBytes], [keptBodyBytes, 60_000])
    // "€" is 3 bytes: 2047 bytes then one across the bound, which is left out whole.
    const euro = keptBody(`${"x".repeat(keptBodyBytes - 1)}€€`)
    assert.deepStrictEqual([euro.body, euro.bodyBytes], ["x".repeat(keptBodyBytes - 1), keptBodyBytes + 5])
    const euros = keptBody("€".repeat(1_000))
    assert.deepStrictEqual([euros.body, euros.bodyBytes], ["€".repeat(682), 3_000])
    assert.isAtMost(new TextEncoder().encode(euros.body).length, keptBodyBytes)
  })

  it("percentiles are by nearest rank, over the values in any order", () => {
    assert.strictEqual(percentile([], 50), 0)
    assert.strictEqual(percentile([7], 99), 7)
    assert.strictEqual(percentile([40, 10, 30, 20], 50), 20)
    assert.strictEqual(percentile(Array.from({ length: 100 }, (_, i) => 100 - i), 99), 99)
    assert.strictEqual(percentile(Array.from({ length: 60 }, (_, i) => i + 1), 99), 60)
  })

  it("answer times pass within the time-out; a call past it, or p99 at its edge, fails naming the figures", () => {
    const fast = timingOf([12, 8, 30, 9].map(exchange), 3_000, 0)
    assert.deepStrictEqual(fast, {
      calls: 4,
      p50Millis: 9,
      p99Millis: 30,
      maxMillis: 30,
      timedOut: 0,
      timeoutMillis: 3_000
    })
    assert.deepStrictEqual(timingProblems(fast), [])
    const late = timingOf([3_000, 12].map(exchange), 3_000, 1)
    assert.match(
      timingProblems(late)[0],
      /^1 of 2 calls got no answer within the 3000 ms time-out \(p50 12 ms, p99 3000 ms/
    )
    assert.match(
      timingProblems(timingOf([2_999, 3_000].map(exchange), 3_000, 0))[0],
      /^Answers came at the time-out's edge/
    )
  })

  it("a run passes only when every case passed; a failed or skipped case fails it, named in the summary", () => {
    const all = caseKeys.map((key) => ({ key, status: "passed" as const }))
    assert.deepStrictEqual(outcome(all), { status: "passed", summary: "25 of 25 cases passed." })
    const some = all.map((result) =>
      result.key === "repeat"
        ? { ...result, status: "failed" as const }
        : result.key === "zero_bet"
        ? { ...result, status: "skipped" as const }
        : result
    )
    assert.deepStrictEqual(outcome(some), {
      status: "failed",
      summary: "23 of 25 cases passed; failed: The same event twice; 1 not run."
    })
  })

  it("every case says what it checks and the fault it catches; a failure ends with that fault", () => {
    assert.deepStrictEqual(Object.keys(cases), [...caseKeys])
    for (const key of caseKeys) {
      assert.isAbove(caseChecks(key, storedCurrency("BRL")).length, 20, key)
      assert.isAbove(cases[key].catches.length, 10, key)
    }
    assert.strictEqual(
      failureReason("repeat", ["The two answers differ.", "The balance is 96.00."]),
      "The two answers differ. The balance is 96.00. Fault caught: double-applies a retry."
    )
  })

  it("a live token is withheld while required, until the latest verdict on the partner's own wallet passed on the live URL's host", () => {
    const passed = { status: "passed" as const, callbackUrl: "https://wallet-test.acme.example/cb" }
    const live = "https://WALLET-TEST.acme.example:8443/live"
    assert.isNull(liveTokenRefusal("acme", { required: false, latest: null, liveCallbackUrl: null }))
    assert.isNull(liveTokenRefusal("acme", { required: true, latest: passed, liveCallbackUrl: live }), "same host")
    assert.match(
      liveTokenRefusal("acme", { required: true, latest: null, liveCallbackUrl: live })!,
      /of its own test wallet, and it has none yet \(a run against the sandbox partner wallet.*run one \(partners certify acme/
    )
    assert.match(
      liveTokenRefusal("acme", {
        required: true,
        latest: { ...passed, status: "failed" },
        liveCallbackUrl: live
      })!,
      /and its latest run against it failed/
    )
    assert.match(
      liveTokenRefusal("acme", { required: true, latest: passed, liveCallbackUrl: null })!,
      /on the host it passed on \(wallet-test\.acme\.example\), and acme has no live callback URL/
    )
    assert.strictEqual(
      liveTokenRefusal("acme", { required: true, latest: passed, liveCallbackUrl: "https://elsewhere.example/cb" }),
      "The live token of acme is issued only after a passed wallet certification of its own test wallet, on the " +
        "host it passed on: its wallet passed on wallet-test.acme.example, and its live callback URL is on " +
        "elsewhere.example. Set the live callback URL on wallet-test.acme.example, or certify the wallet on " +
        "elsewhere.example."
    )
  })

  it("under the setting, only an operator or the partner's owner may issue the live token", () => {
    assert.isNull(liveTokenIssuerRefusal("acme", false, { via: "portal", role: "developer" }), "no setting")
    assert.isNull(liveTokenIssuerRefusal("acme", true, { via: "console" }))
    assert.isNull(liveTokenIssuerRefusal("acme", true, { via: "cli" }))
    assert.isNull(liveTokenIssuerRefusal("acme", true, { via: "portal", role: "owner" }))
    assert.match(
      liveTokenIssuerRefusal("acme", true, { via: "portal", role: "developer" })!,
      /only its owner \(or an operator\) may issue it/
    )
  })

  it("a failure names the fault its case catches, or unreadable answers when that is all it saw; one period per sentence", () => {
    assert.strictEqual(
      failureReason("two_decimals", [
        "The bet was answered: no usable answer: The partner's balance 88.75999999999999 has more decimals than BRL has (2).",
        "The balance after the round's refund could not be read."
      ]),
      "The bet was answered: no usable answer: The partner's balance 88.75999999999999 has more decimals than BRL " +
        "has (2). The balance after the round's refund could not be read. Fault caught: answers the service cannot " +
        "read (see each exchange's reading)."
    )
    assert.strictEqual(
      compared("of the test player afterwards", undefined, 0n, storedCurrency("BRL"))[0],
      "The balance of the test player afterwards could not be read."
    )
  })

  it("a certification callback is the wallet's own body with the run's event id and a certification field, keys in order", () => {
    const id = newCertificationId()
    assert.isTrue(isCertificationId(id))
    assert.isFalse(isCertificationId("evt_0123456789abcdef"))
    const eventId = certificationEventId(id, 7)
    assert.strictEqual(eventId, `evt_${id}_007`)
    const real = betBody(
      { partnerSlug: "acme", externalPlayerId: "p-1", userCode: 100001, currency: storedCurrency("BRL") },
      { txnId: `${id}_bet`, roundId: `${id}_bet`, gameCode: "certification", providerCode: "certification" },
      1234n,
      new Date("2026-11-22T13:00:00Z")
    )
    const body = certificationBody(real, { id, key: "two_decimals" }, eventId)
    assert.deepStrictEqual(Object.keys(JSON.parse(body)), [...Object.keys(JSON.parse(real)), "certification"])
    assert.deepInclude(JSON.parse(body), {
      event_id: eventId,
      kind: "bet",
      amount: 12.34,
      currency: "BRL",
      certification: { run: id, case: "two_decimals" }
    })
    const rollback = JSON.parse(certificationBody(real, { id, key: "rollback" }, eventId, `evt_${id}_006`))
    assert.strictEqual(rollback.rolls_back, `evt_${id}_006`)
  })

  it("a balance against the one expected, in words and the currency's units, with the difference signed", () => {
    const brl = storedCurrency("BRL")
    const jpy = storedCurrency("JPY")
    assert.deepStrictEqual(compared("after the bet", 14_900n, 14_900n, brl), [])
    assert.deepStrictEqual(compared("after the bet", 14_800n, 14_900n, brl), [
      "After the bet the balance is 148.00 BRL, not 149.00 BRL (-1.00 BRL)."
    ])
    assert.deepStrictEqual(compared("at the end", 5_034n, 5_000n, jpy), [
      "At the end the balance is 5034 JPY, not 5000 JPY (+34 JPY)."
    ])
    assert.deepStrictEqual(compared("afterwards", undefined, 1n, brl), ["The balance afterwards could not be read."])
  })

  it("answers read in words, in the call's currency", () => {
    const brl = storedCurrency("BRL")
    assert.strictEqual(answerReading({ _tag: "Balance", balance: 14_900n }, brl), "balance 149.00 BRL")
    assert.strictEqual(
      answerReading({ _tag: "Balance", balance: 1n }, storedCurrency("BTC")),
      "balance 0.00000001 BTC"
    )
    assert.strictEqual(
      answerReading({ _tag: "InsufficientFunds", balance: 5n }, brl),
      "refused: insufficient funds (balance 0.05 BRL)"
    )
    assert.strictEqual(answerReading({ _tag: "UnknownPlayer" }, brl), "refused: unknown player")
    assert.strictEqual(
      answerReading({ _tag: "Unavailable", reason: "The partner answered HTTP 401: \"no\"" }, brl),
      "no usable answer: The partner answered HTTP 401: \"no\""
    )
  })

  it("a run's amounts scale with its currency: whole units times 10^exponent, valid and distinct at every exponent from 0 to 18", () => {
    for (let exponent = 0; exponent <= 18; exponent++) {
      const currency = { code: "XTS", exponent, kind: "fiat" as const }
      const amounts = caseAmounts(currency)
      const unit = 10n ** BigInt(exponent)
      assert.strictEqual(amounts.unit, unit)
      assert.strictEqual(amounts.float, 100n * unit)
      const all = Object.values(amounts)
      assert.strictEqual(new Set(all).size, all.length, `distinct at exponent ${exponent}`)
      for (const minor of [...all, amounts.fineBet - amounts.fineWin]) assert.isAbove(Number(minor), 0)
    }
    assert.deepStrictEqual(
      Object.values(caseAmounts(storedCurrency("BRL"))).map((minor) => amountText(minor, storedCurrency("BRL"))),
      [
        "1.00 BRL",
        "100.00 BRL",
        "10.01 BRL",
        "2.00 BRL",
        "5.00 BRL",
        "3.00 BRL",
        "4.00 BRL",
        "6.00 BRL",
        "8.00 BRL",
        "9.00 BRL",
        "17.00 BRL",
        "13.00 BRL",
        "14.00 BRL",
        "15.00 BRL",
        "16.00 BRL",
        "22.00 BRL",
        "19.00 BRL",
        "10.00 BRL",
        "12.00 BRL",
        "18.00 BRL",
        "12.34 BRL",
        "0.07 BRL"
      ]
    )
    assert.deepStrictEqual(
      Object.values(caseAmounts(storedCurrency("JPY"))).map((minor) => amountText(minor, storedCurrency("JPY"))),
      [
        "1 JPY",
        "100 JPY",
        "11 JPY",
        "2 JPY",
        "5 JPY",
        "3 JPY",
        "4 JPY",
        "6 JPY",
        "8 JPY",
        "9 JPY",
        "17 JPY",
        "13 JPY",
        "14 JPY",
        "15 JPY",
        "16 JPY",
        "22 JPY",
        "19 JPY",
        "10 JPY",
        "12 JPY",
        "18 JPY",
        "46 JPY",
        "7 JPY"
      ]
    )
    assert.include(
      caseChecks("two_decimals", storedCurrency("BTC")),
      "A bet of 12.00000034 BTC, a win of 0.00000007 BTC"
    )
  })
})
