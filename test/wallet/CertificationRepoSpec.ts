import { assert, type Vitest } from "@effect/vitest"
import { Duration, Effect, Exit, Option, Result } from "effect"
import { type CaseResult, newCertificationId } from "../../src/domain/Certification.ts"
import type { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { runsKeptFor } from "../../src/domain/CertificationRuns.ts"
import {
  CertificationInProgress,
  CertificationRepo,
  CertificationRunsLimited,
  type NewCertification
} from "../../src/wallet/certification/CertificationRepo.ts"
import { givenRepoPartner } from "../support/RepoPartner.ts"

/**
 * What CertificationRepo promises, whichever form keeps it: run over PostgreSQL and over memory by
 * certification-repo.test.ts. `age` makes a run look untouched for a while (the SQL moves its row's time back, memory
 * moves the test's clock on): how a run whose instance died is seen.
 */
export const certificationRepoSpec = <R>(
  it: Vitest.MethodsNonLive<CertificationRepo | PartnerRepo | R>,
  age: (id: string, by: Duration.Duration) => Effect.Effect<void, never, R>
) => {
  const run = (partnerId: number, startedVia: NewCertification["startedVia"] = "console"): NewCertification => ({
    id: newCertificationId(),
    partnerId,
    externalPlayerId: "cert-player",
    currency: "BTC",
    callbackUrl: "https://wallet.example/callbacks",
    partnerWallet: true,
    startedBy: "ops@example.com",
    startedVia,
    timeoutMillis: 3_000
  })
  /** A run started and finished at once. */
  const finished = (partnerId: number, startedVia: NewCertification["startedVia"] = "console") =>
    Effect.gen(function*() {
      const repo = yield* CertificationRepo
      const started = yield* repo.insert(run(partnerId, startedVia))
      yield* repo.finish(started.id, "passed", "All cases passed.")
      return started
    })
  const result = (key: CaseResult["key"], status: CaseResult["status"] = "passed"): CaseResult => ({
    key,
    status,
    reason: status === "passed" ? null : `The ${key} case ${status}.`,
    // Minor units of BTC past what a double holds (100.50000001 BTC): stored and read back exactly.
    balanceBefore: 10_050_000_001n,
    expectedBalance: 9_950_000_001n,
    balanceAfter: status === "passed" ? 9_950_000_001n : 10_050_000_001n,
    timing: key === "bet"
      ? { calls: 3, p50Millis: 40, p99Millis: 90, maxMillis: 95, timedOut: 0, timeoutMillis: 3_000 }
      : null,
    exchanges: [{
      label: `${key} 1.00`,
      sentAt: new Date("2026-11-01T12:00:00.123Z"),
      millis: 42,
      request: { headers: { "content-type": "application/json" }, body: "{\"amount\":\"1.00\"}", bodyBytes: 17 },
      response: { status: 200, body: "{\"balance\":\"99.50000001\"}", bodyBytes: 24 },
      error: null,
      reading: "balance 99.50000001 BTC"
    }],
    finishedAt: new Date("2026-11-01T12:00:01.000Z")
  })

  it.effect("a partner runs one certification at a time: a second start is refused naming the running one, another partner's is not", () =>
    Effect.gen(function*() {
      const repo = yield* CertificationRepo
      const [acme, other] = [yield* givenRepoPartner, yield* givenRepoPartner]
      const first = run(acme.id)
      const started = yield* repo.insert(first)
      assert.deepStrictEqual(
        [
          started.id,
          started.partnerId,
          started.status,
          started.summary,
          started.finishedAt,
          started.startedVia,
          started.timeoutMillis
        ],
        [first.id, acme.id, "running", null, null, "console", 3_000]
      )
      const refused = yield* Effect.flip(repo.insert(run(acme.id)))
      assert.instanceOf(refused, CertificationInProgress)
      assert.strictEqual(refused.id, first.id)
      assert.strictEqual((yield* repo.insert(run(other.id))).status, "running")
      yield* repo.finish(first.id, "passed", "All cases passed.")
      assert.strictEqual(
        (yield* repo.insert(run(acme.id))).status,
        "running",
        "a finished run frees the partner's turn"
      )
    }))

  it.effect("cases come back in the run's order as recorded, amounts, timing and exchanges alike; a run is found only through its own partner", () =>
    Effect.gen(function*() {
      const repo = yield* CertificationRepo
      const [acme, other] = [yield* givenRepoPartner, yield* givenRepoPartner]
      const { id } = yield* repo.insert(run(acme.id))
      const [balance, bet] = [result("balance"), result("bet", "failed")]
      yield* repo.recordCase(id, 1, bet)
      yield* repo.recordCase(id, 0, balance)
      const found = Option.getOrThrow(yield* repo.find(id, acme.id))
      assert.deepStrictEqual(found.cases, [balance, bet])
      assert.isTrue(Option.isSome(yield* repo.find(id)), "the operator finds any run")
      assert.isTrue(Option.isNone(yield* repo.find(id, other.id)), "another partner does not")
      assert.isTrue(Option.isNone(yield* repo.find(newCertificationId())))
      assert.isTrue(
        Exit.isFailure(yield* Effect.exit(repo.recordCase(id, 1, result("win")))),
        "a position is recorded once"
      )
      assert.isTrue(Exit.isFailure(yield* Effect.exit(repo.recordCase(id, 2, result("balance")))), "and a case once")
      yield* repo.recordCase(newCertificationId(), 0, balance)
      assert.strictEqual(Option.getOrThrow(yield* repo.find(id)).cases.length, 2)
    }))

  it.effect("a run finishes once; lists are newest first; the requirement reads the latest finished run", () =>
    Effect.gen(function*() {
      const repo = yield* CertificationRepo
      const acme = yield* givenRepoPartner
      assert.deepStrictEqual(yield* repo.requirement(acme.id), { required: false, latest: null })
      const a = yield* repo.insert(run(acme.id))
      yield* repo.finish(a.id, "failed", "2 cases failed.")
      yield* repo.finish(a.id, "passed", "too late")
      const b = yield* repo.insert(run(acme.id))
      yield* repo.finish(b.id, "passed", "All cases passed.")
      const c = yield* repo.insert(run(acme.id))
      const listed = yield* repo.list(acme.id, 10)
      assert.deepStrictEqual(listed.map((one) => [one.id, one.status, one.summary]), [
        [c.id, "running", null],
        [b.id, "passed", "All cases passed."],
        [a.id, "failed", "2 cases failed."]
      ])
      assert.isNotNull(listed[1].finishedAt)
      assert.notProperty(listed[0], "cases", "a listing carries no cases")
      assert.deepStrictEqual((yield* repo.list(acme.id, 1)).map((one) => one.id), [c.id])
      assert.deepStrictEqual(
        yield* repo.requirement(acme.id),
        { required: false, latest: { status: "passed", callbackUrl: "https://wallet.example/callbacks" } },
        "the running one is not judged"
      )
    }))

  it.effect("the requirement is turned on and off, each call saying whether it changed anything", () =>
    Effect.gen(function*() {
      const repo = yield* CertificationRepo
      const acme = yield* givenRepoPartner
      assert.deepStrictEqual([yield* repo.setRequired(acme.id, true), yield* repo.setRequired(acme.id, true)], [
        true,
        false
      ])
      assert.isTrue((yield* repo.requirement(acme.id)).required)
      yield* repo.lockPartner(acme.id)
      assert.deepStrictEqual([yield* repo.setRequired(acme.id, false), yield* repo.setRequired(acme.id, false)], [
        true,
        false
      ])
      assert.isFalse((yield* repo.requirement(acme.id)).required)
    }))

  it.effect("a run untouched for longer than a run could take reads as interrupted, and is closed as such when the partner starts another", () =>
    Effect.gen(function*() {
      const repo = yield* CertificationRepo
      const acme = yield* givenRepoPartner
      const dead = yield* repo.insert(run(acme.id))
      yield* age(dead.id, Duration.days(1))
      const seen = Option.getOrThrow(yield* repo.find(dead.id))
      assert.strictEqual(seen.status, "interrupted")
      assert.match(seen.summary ?? "", /^The run stopped before it finished/)
      assert.strictEqual((yield* repo.list(acme.id, 1))[0].status, "interrupted")
      const next = yield* repo.insert(run(acme.id))
      assert.strictEqual(next.status, "running", "the dead run does not hold the partner's turn")
      const closed = Option.getOrThrow(yield* repo.find(dead.id))
      assert.strictEqual(closed.status, "interrupted")
      assert.isNotNull(closed.finishedAt, "closed for good")
      assert.deepStrictEqual(yield* repo.requirement(acme.id), { required: false, latest: null }, "no verdict")
    }))

  it.effect("only a verdict on the partner's own wallet counts: practice runs, not_run and interrupted runs do not", () =>
    Effect.gen(function*() {
      const repo = yield* CertificationRepo
      const acme = yield* givenRepoPartner
      const own = yield* repo.insert(run(acme.id))
      yield* repo.finish(own.id, "failed", "1 case failed.")
      const practice = yield* repo.insert({
        ...run(acme.id),
        callbackUrl: "https://sandbox.example/wallet",
        partnerWallet: false
      })
      yield* repo.finish(practice.id, "passed", "All cases passed.")
      const notRun = yield* repo.insert(run(acme.id))
      yield* repo.finish(notRun.id, "not_run", "Not run: the service could not send the run's callbacks.")
      const stopped = yield* repo.insert(run(acme.id))
      yield* repo.finish(stopped.id, "interrupted", "The run was interrupted.")
      assert.deepStrictEqual(yield* repo.requirement(acme.id), {
        required: false,
        latest: { status: "failed", callbackUrl: "https://wallet.example/callbacks" }
      })
      assert.deepStrictEqual(
        Option.map(yield* repo.find(practice.id), (found) => [found.partnerWallet, found.callbackUrl]),
        Option.some([false, "https://sandbox.example/wallet"])
      )
    }))

  it.effect("runs that ended before their last case are claimed once each for recovery, with the balance they started from", () =>
    Effect.gen(function*() {
      const repo = yield* CertificationRepo
      const acme = yield* givenRepoPartner
      const finished = yield* repo.insert(run(acme.id))
      yield* repo.finish(finished.id, "passed", "All cases passed.")
      const stopped = yield* repo.insert(run(acme.id))
      yield* repo.recordCase(stopped.id, 0, result("balance"))
      yield* repo.finish(stopped.id, "interrupted", "The run was interrupted.")
      const dead = yield* repo.insert(run(acme.id))
      yield* age(dead.id, Duration.days(1))
      // Every claim there is (other tests' runs share the repository), until none is left: this partner's, in order.
      const claims: Array<[string, bigint | null]> = []
      for (let claim = yield* repo.claimInterrupted; Option.isSome(claim); claim = yield* repo.claimInterrupted) {
        if (claim.value.partnerId === acme.id) claims.push([claim.value.id, claim.value.start])
      }
      assert.deepStrictEqual(
        claims,
        [[stopped.id, 9_950_000_001n], [dead.id, null]],
        "each once (a claim holds), a finished run never; the dead run read nothing, so nothing had moved"
      )
      assert.strictEqual(Option.getOrThrow(yield* repo.find(dead.id)).status, "interrupted", "closed by its claim")
      yield* repo.recovered(stopped.id, "Recovered: nothing to give back.")
      assert.strictEqual(
        Option.getOrThrow(yield* repo.find(stopped.id)).summary,
        "The run was interrupted. Recovered: nothing to give back."
      )
    }))

  // CERTIFICATION_RUNS_PER_HOUR is 6 in the tests' settings (testCallbacksConfig).
  it.effect("the partner's own starts are limited to 6 in a rolling hour, everyone's counted; an operator's are never refused", () =>
    Effect.gen(function*() {
      const repo = yield* CertificationRepo
      const [acme, other] = [yield* givenRepoPartner, yield* givenRepoPartner]
      const first = yield* finished(acme.id, "console")
      for (const via of ["cli", "api", "console", "api", "api"] as const) yield* finished(acme.id, via)
      const refused = yield* Effect.flip(repo.insert(run(acme.id, "api")))
      assert.instanceOf(refused, CertificationRunsLimited)
      assert.strictEqual(refused.perHour, 6)
      assert.strictEqual(refused.nextAt.getTime(), first.startedAt.getTime() + 3_600_000, "when the oldest leaves")
      assert.match(
        refused.message,
        /^A partner may start 6 wallet certification runs in any hour, and 6 were started in the last hour: the next may start at \d\d:\d\d UTC \(in (59|60) minutes\)\.$/
      )
      assert.strictEqual((yield* finished(other.id, "api")).status, "running", "another partner has its own count")
      yield* age(first.id, Duration.minutes(61))
      // Over PostgreSQL the oldest left the hour; over memory the clock moved past all of them.
      assert.strictEqual((yield* finished(acme.id, "api")).status, "running")
      // Over PostgreSQL 6 again in the hour: the partner's next is refused, an operator's is not.
      assert.strictEqual((yield* finished(acme.id, "console")).status, "running", "an operator's start is not refused")
    }))

  it.effect("concurrent starts of a partner at its last place: one starts, the others are refused, and the limit holds", () =>
    Effect.gen(function*() {
      const repo = yield* CertificationRepo
      const acme = yield* givenRepoPartner
      for (let n = 0; n < 5; n++) yield* finished(acme.id, "api")
      const starts = yield* Effect.all(
        Array.from({ length: 8 }, () => Effect.result(repo.insert(run(acme.id, "api")))),
        { concurrency: "unbounded" }
      )
      const started = starts.flatMap((one) => Result.isSuccess(one) ? [one.success] : [])
      assert.strictEqual(started.length, 1)
      for (const one of starts) {
        if (Result.isFailure(one)) {
          assert.oneOf(one.failure._tag, ["CertificationInProgress", "CertificationRunsLimited"])
        }
      }
      yield* repo.finish(started[0].id, "passed", "All cases passed.")
      const [again, more] = yield* Effect.all(
        [Effect.flip(repo.insert(run(acme.id, "api"))), Effect.flip(repo.insert(run(acme.id, "api")))],
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual([again._tag, more._tag], ["CertificationRunsLimited", "CertificationRunsLimited"])
      assert.strictEqual((yield* repo.listPage(acme.id, { page: 1, perPage: 50 })).total, 6)
    }))

  it.effect("runs are listed in pages, newest first; a report's cases are read in pages, in the run's order, its own partner's only", () =>
    Effect.gen(function*() {
      const repo = yield* CertificationRepo
      const [acme, other] = [yield* givenRepoPartner, yield* givenRepoPartner]
      const a = yield* finished(acme.id)
      const b = yield* finished(acme.id)
      const c = yield* repo.insert(run(acme.id))
      const first = yield* repo.listPage(acme.id, { page: 1, perPage: 2 })
      assert.deepStrictEqual([first.results.map((one) => one.id), first.total, first.page], [[c.id, b.id], 3, 1])
      assert.notProperty(first.results[0], "cases")
      assert.deepStrictEqual((yield* repo.listPage(acme.id, { page: 2, perPage: 2 })).results.map((one) => one.id), [
        a.id
      ])
      assert.deepStrictEqual((yield* repo.listPage(acme.id, { page: 3, perPage: 2 })).results, [])
      assert.strictEqual((yield* repo.listPage(other.id, { page: 1, perPage: 2 })).total, 0)

      const [balance, bet, win] = [result("balance"), result("bet", "failed"), result("win")]
      yield* repo.recordCase(c.id, 2, win)
      yield* repo.recordCase(c.id, 0, balance)
      yield* repo.recordCase(c.id, 1, bet)
      const second = Option.getOrThrow(yield* repo.findPage(c.id, acme.id, { page: 2, perPage: 2 }))
      assert.deepStrictEqual([second.run.cases, second.casesFinished, second.run.status], [[win], 3, "running"])
      const whole = Option.getOrThrow(yield* repo.findPage(c.id, acme.id, { page: 1, perPage: 50 }))
      assert.deepStrictEqual(whole.run, Option.getOrThrow(yield* repo.find(c.id, acme.id)))
      assert.isTrue(Option.isNone(yield* repo.findPage(c.id, other.id, { page: 1, perPage: 50 })))
    }))

  it.effect("runs older than 90 days are pruned with their cases, but each partner's latest verdict on its own wallet", () =>
    Effect.gen(function*() {
      const repo = yield* CertificationRepo
      const [acme, other] = [yield* givenRepoPartner, yield* givenRepoPartner]
      const oldest = yield* finished(acme.id)
      yield* repo.recordCase(oldest.id, 0, result("balance"))
      const latest = yield* finished(acme.id)
      const otherOld = yield* finished(other.id)
      const otherNew = yield* finished(other.id)
      const old = Duration.sum(runsKeptFor, Duration.days(1))
      for (const id of [oldest.id, latest.id, otherOld.id]) yield* age(id, old)
      const current = yield* repo.insert(run(acme.id))
      // At least these two: over memory, the clock moved past the earlier tests' runs too.
      assert.isAtLeast(yield* repo.prune(runsKeptFor), 2)
      assert.isTrue(Option.isNone(yield* repo.find(oldest.id)), "with its cases")
      assert.isTrue(Option.isNone(yield* repo.find(otherOld.id)))
      assert.deepStrictEqual((yield* repo.list(acme.id, 10)).map((one) => one.id), [current.id, latest.id])
      assert.deepStrictEqual((yield* repo.list(other.id, 10)).map((one) => one.id), [otherNew.id])
      assert.deepStrictEqual(yield* repo.requirement(acme.id), {
        required: false,
        latest: { status: "passed", callbackUrl: "https://wallet.example/callbacks" }
      })
      assert.strictEqual(yield* repo.prune(runsKeptFor), 0)
    }))
}
