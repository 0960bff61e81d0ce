import { assert, type Vitest } from "@effect/vitest"
import { Duration, Effect } from "effect"
import type { StuckItem, StuckKind } from "../../src/domain/Stuck.ts"
import type { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { StuckAlertRepo } from "../../src/wallet/stuck/StuckAlertRepo.ts"
import { givenRepoPartner } from "../support/RepoPartner.ts"

/**
 * What StuckAlertRepo promises, whichever form keeps it: run over PostgreSQL and over memory by
 * stuck-alert-repo.test.ts. The file's tests share the layer's rows, so each records items of its own refs and
 * leaves no alert due behind it (a later test's claim would take it).
 */
export const stuckAlertRepoSpec = (it: Vitest.MethodsNonLive<StuckAlertRepo | PartnerRepo>) => {
  let nextRef = 1_000 + Math.floor(Math.random() * 1_000_000) * 100
  const item = (partnerId: number, kind: StuckKind = "round"): StuckItem => {
    const ref = nextRef++
    return {
      kind,
      ref,
      partnerId,
      environment: "test",
      subject: `${kind}-${ref}`,
      transactionId: null,
      externalPlayerId: kind === "round" ? null : "player-1",
      since: new Date("2026-11-01T10:00:00.000Z"),
      detail: `Item ${ref} is stuck.`
    }
  }
  const recentOf = (items: ReadonlyArray<StuckItem>, within = Duration.hours(1)) =>
    Effect.map(
      Effect.flatMap(Effect.service(StuckAlertRepo), (repo) => repo.recent(within, 10_000)),
      (rows) => rows.filter((row) => items.some((item) => item.kind === row.kind && item.ref === row.ref))
    )

  it.effect("an item is new to the fleet once: later sightings only say it is still there, and a resolved one comes back without a second alert", () =>
    Effect.gen(function*() {
      const repo = yield* StuckAlertRepo
      const partner = yield* givenRepoPartner
      const [round, bet] = [item(partner.id, "round"), item(partner.id, "bet")]
      const first = yield* repo.record([round], false)
      assert.deepStrictEqual(first, [{
        kind: "round",
        subject: round.subject,
        partnerId: partner.id,
        environment: "test",
        inserted: true
      }])
      const second = yield* repo.record([round, bet], false)
      assert.deepStrictEqual(second.map((row) => row.subject), [bet.subject], "only the bet is new")
      assert.deepStrictEqual(yield* repo.record([], true), [])
      yield* repo.resolveUnseen("round", [])
      assert.isNotNull((yield* recentOf([round]))[0].resolvedAt)
      assert.deepStrictEqual(
        yield* repo.record([{ ...round, detail: "changed" }], true),
        [],
        "the same item, not a new one"
      )
      const [back] = yield* recentOf([round])
      assert.deepStrictEqual([back.resolvedAt, back.alertStatus, back.detail, back.since], [
        null,
        "off",
        round.detail,
        round.since
      ])
      assert.deepStrictEqual([back.externalPlayerId, (yield* recentOf([bet]))[0].externalPlayerId], [null, "player-1"])
    }))

  it.effect("resolving the unseen takes the unresolved items of that kind not among those seen, and no other", () =>
    Effect.gen(function*() {
      const repo = yield* StuckAlertRepo
      const partner = yield* givenRepoPartner
      const [seen, gone, bet] = [item(partner.id), item(partner.id), item(partner.id, "bet")]
      yield* repo.record([seen, gone, bet], false)
      yield* repo.resolveUnseen("round", [seen.ref])
      const resolved = (yield* recentOf([seen, gone, bet])).filter((row) => row.resolvedAt !== null).map((row) =>
        row.subject
      )
      assert.deepStrictEqual(resolved, [gone.subject])
      yield* repo.resolveUnseen("bet", [])
      assert.isEmpty(yield* recentOf([gone], Duration.zero), "resolved now is not within no time at all")
      assert.deepStrictEqual((yield* recentOf([seen, gone, bet], Duration.zero)).map((row) => row.subject), [
        seen.subject
      ])
    }))

  it.effect("recent lists the unresolved first, each part newest first, up to its limit", () =>
    Effect.gen(function*() {
      const repo = yield* StuckAlertRepo
      const partner = yield* givenRepoPartner
      const [a, b, c] = [
        item(partner.id, "notification"),
        item(partner.id, "notification"),
        item(partner.id, "notification")
      ]
      for (const one of [a, b, c]) yield* repo.record([one], false)
      yield* repo.resolveUnseen("notification", [a.ref, c.ref])
      assert.deepStrictEqual((yield* recentOf([a, b, c])).map((row) => row.subject), [c.subject, a.subject, b.subject])
      assert.strictEqual((yield* repo.recent(Duration.hours(1), 2)).length, 2)
    }))

  it.effect("an alert is claimed oldest-due first for its lease, then sent once, retried after a failure or given up", () =>
    Effect.gen(function*() {
      const repo = yield* StuckAlertRepo
      const partner = yield* givenRepoPartner
      const quiet = item(partner.id)
      yield* repo.record([quiet], false)
      const [x, y, z] = [item(partner.id), item(partner.id), item(partner.id)]
      const recorded = yield* repo.record([x, y, z], true)
      assert.strictEqual(recorded.length, 3)
      const claimed = yield* repo.claimDue(2, Duration.minutes(5))
      // Which alerts are claimed is the oldest due (by id within a time); the order they come back in is not promised
      // (UPDATE … RETURNING answers in the table's order).
      const subjects = (rows: ReadonlyArray<{ readonly subject: string }>) => rows.map((row) => row.subject).sort()
      assert.deepStrictEqual(subjects(claimed), [x.subject, y.subject].sort(), "the oldest due are claimed")
      assert.isTrue(claimed.every((row) => row.alertStatus === "pending" && row.alertNextAt !== null))
      const rest = yield* repo.claimDue(10, Duration.minutes(5))
      assert.deepStrictEqual(
        rest.map((row) => row.subject),
        [z.subject],
        "the leased ones are not claimed again; an alert `off` never is"
      )
      assert.isEmpty(yield* repo.claimDue(10, Duration.minutes(5)))
      const [cx, cy] = [
        claimed.find((row) => row.subject === x.subject)!,
        claimed.find((row) => row.subject === y.subject)!
      ]
      yield* repo.markSent(cx.id)
      yield* repo.markFailed(cy.id, "503 from the operator", Duration.zero)
      yield* repo.markFailed(rest[0].id, "refused", null)
      const again = yield* repo.claimDue(10, Duration.minutes(5))
      assert.deepStrictEqual(again.map((row) => [row.subject, row.alertAttempts, row.alertLastError]), [[
        y.subject,
        1,
        "503 from the operator"
      ]])
      yield* repo.markFailed(again[0].id, "timed out", Duration.hours(1))
      assert.isEmpty(yield* repo.claimDue(10, Duration.minutes(5)), "a retry waits its time")
      const rows = yield* recentOf([x, y, z, quiet])
      const of = (subject: string) => rows.find((row) => row.subject === subject)!
      assert.deepStrictEqual([of(x.subject).alertStatus, of(x.subject).alertAttempts, of(x.subject).alertNextAt], [
        "sent",
        1,
        null
      ])
      assert.isNotNull(of(x.subject).alertedAt)
      assert.deepStrictEqual([of(y.subject).alertStatus, of(y.subject).alertAttempts, of(y.subject).alertLastError], [
        "pending",
        2,
        "timed out"
      ])
      assert.deepStrictEqual([of(z.subject).alertStatus, of(z.subject).alertNextAt, of(z.subject).alertedAt], [
        "failed",
        null,
        null
      ])
      assert.deepStrictEqual([of(quiet.subject).alertStatus, of(quiet.subject).alertAttempts], ["off", 0])
      // Nothing of this test is left due for another's claim.
      yield* repo.markSent(of(y.subject).id)
    }))
}
