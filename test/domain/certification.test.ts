/**
 * The wallet certification's rules without a database: how answer times are judged against the time-out, how a
 * run ends from its cases, when a live token is withheld, and what a certification callback's body looks like.
 */
import { assert, describe, it } from "@effect/vitest"
import { betBody } from "../../src/domain/Callbacks.ts"
import {
  answerReading,
  caseKeys,
  cases,
  certificationBody,
  certificationEventId,
  compared,
  type Exchange,
  failureReason,
  isCertificationId,
  liveTokenRefusal,
  newCertificationId,
  outcome,
  percentile,
  timingOf,
  timingProblems
} from "../../src/domain/Certification.ts"

const exchange = (millis: number): Exchange => ({
  label: "balance",
  sentAt: new Date(0),
  millis,
  request: { headers: {}, body: "{}" },
  response: { status: 200, body: "{\"balance\":1}" },
  error: null,
  reading: "balance 1.00"
})

describe("wallet certification rules", () => {
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
    assert.deepStrictEqual(outcome(all), { status: "passed", summary: "17 of 17 cases passed." })
    const some = all.map((result) =>
      result.key === "repeat"
        ? { ...result, status: "failed" as const }
        : result.key === "zero_bet"
        ? { ...result, status: "skipped" as const }
        : result
    )
    assert.deepStrictEqual(outcome(some), {
      status: "failed",
      summary: "15 of 17 cases passed; failed: The same event twice; 1 not run."
    })
  })

  it("every case says what it checks and the fault it catches; a failure ends with that fault", () => {
    assert.deepStrictEqual(Object.keys(cases), [...caseKeys])
    for (const key of caseKeys) {
      assert.isAbove(cases[key].checks.length, 20, key)
      assert.isAbove(cases[key].catches.length, 10, key)
    }
    assert.strictEqual(
      failureReason("repeat", ["The two answers differ.", "The balance is 96.00."]),
      "The two answers differ. The balance is 96.00. Fault caught: double-applies a retry."
    )
  })

  it("a live token is withheld only while required and the latest finished run did not pass", () => {
    assert.isNull(liveTokenRefusal("acme", { required: false, latest: null }))
    assert.isNull(liveTokenRefusal("acme", { required: true, latest: "passed" }))
    assert.match(
      liveTokenRefusal("acme", { required: true, latest: null })!,
      /and it has no finished run yet: run one \(partners certify acme/
    )
    assert.match(liveTokenRefusal("acme", { required: true, latest: "failed" })!, /and its latest run failed/)
    assert.match(
      liveTokenRefusal("acme", { required: true, latest: "interrupted" })!,
      /and its latest run was interrupted/
    )
  })

  it("a certification callback is the wallet's own body with the run's event id and a certification field, keys in order", () => {
    const id = newCertificationId()
    assert.isTrue(isCertificationId(id))
    assert.isFalse(isCertificationId("evt_0123456789abcdef"))
    const eventId = certificationEventId(id, 7)
    assert.strictEqual(eventId, `evt_${id}_007`)
    const real = betBody(
      { partnerSlug: "acme", externalPlayerId: "p-1", userCode: 100001 },
      { txnId: `${id}_bet`, roundId: `${id}_bet`, gameCode: "certification", providerCode: "certification" },
      1234,
      new Date("2026-11-22T13:00:00Z")
    )
    const body = certificationBody(real, { id, key: "two_decimals" }, eventId)
    assert.deepStrictEqual(Object.keys(JSON.parse(body)), [...Object.keys(JSON.parse(real)), "certification"])
    assert.deepInclude(JSON.parse(body), {
      event_id: eventId,
      kind: "bet",
      amount: 12.34,
      certification: { run: id, case: "two_decimals" }
    })
    const rollback = JSON.parse(certificationBody(real, { id, key: "rollback" }, eventId, `evt_${id}_006`))
    assert.strictEqual(rollback.rolls_back, `evt_${id}_006`)
  })

  it("a balance against the one expected, in words, with the difference signed", () => {
    assert.deepStrictEqual(compared("after the bet", 14_900n, 14_900n), [])
    assert.deepStrictEqual(compared("after the bet", 14_800n, 14_900n), [
      "After the bet the balance is 148.00, not 149.00 (-1.00)."
    ])
    assert.deepStrictEqual(compared("at the end", 5_034n, 5_000n), [
      "At the end the balance is 50.34, not 50.00 (+0.34)."
    ])
    assert.deepStrictEqual(compared("afterwards", undefined, 1n), ["The balance could not be read afterwards."])
  })

  it("answers read in words", () => {
    assert.strictEqual(answerReading({ _tag: "Balance", balance: 14_900n }), "balance 149.00")
    assert.strictEqual(
      answerReading({ _tag: "InsufficientFunds", balance: 5n }),
      "refused: insufficient funds (balance 0.05)"
    )
    assert.strictEqual(answerReading({ _tag: "UnknownPlayer" }), "refused: unknown player")
    assert.strictEqual(
      answerReading({ _tag: "Unavailable", reason: "The partner answered HTTP 401: \"no\"" }),
      "no usable answer: The partner answered HTTP 401: \"no\""
    )
  })
})
