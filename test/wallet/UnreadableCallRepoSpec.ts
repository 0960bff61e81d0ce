import { assert, type Vitest } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { randomBytes } from "node:crypto"
import type { NewUnreadableCall } from "../../src/domain/UnreadableCalls.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import type { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { UnreadableCallRepo } from "../../src/wallet/stuck/UnreadableCallRepo.ts"
import { givenRepoPartner } from "../support/RepoPartner.ts"

/**
 * What UnreadableCallRepo promises, whichever form keeps it: run over PostgreSQL and over memory by
 * unreadable-call-repo.test.ts. The file's tests share the layer's rows, so each uses transaction ids of its own.
 */
export const unreadableCallRepoSpec = (
  it: Vitest.MethodsNonLive<UnreadableCallRepo | PartnerPlayers | PartnerRepo>
) => {
  const unique = () => randomBytes(4).toString("hex")
  const givenCall = Effect.gen(function*() {
    const partner = yield* givenRepoPartner
    const player = yield* (yield* PartnerPlayers).arrive({
      partnerId: partner.id,
      environment: "test",
      externalPlayerId: `p-${unique()}`,
      currency: "BRL",
      name: null,
      email: null,
      balance: 10_000n
    })
    const txnId = `t-${unique()}`
    return {
      aggregator: "sandbox",
      environment: "test",
      partnerId: partner.id,
      playerId: player.id,
      txnId,
      roundId: `r-${txnId}`,
      field: "slot.bet",
      amount: "0.001",
      currency: "BRL"
    } satisfies NewUnreadableCall
  })
  const mine = <A extends { readonly txnId: string }>(calls: ReadonlyArray<A>, ...txnIds: ReadonlyArray<string>) =>
    calls.filter((call) => txnIds.includes(call.txnId))

  it.effect("a call is recorded once per aggregator, environment and transaction id, as it was sent", () =>
    Effect.gen(function*() {
      const repo = yield* UnreadableCallRepo
      const call = yield* givenCall
      assert.isTrue(yield* repo.record(call))
      assert.isFalse(yield* repo.record({ ...call, amount: "0.0001", field: "slot.win" }), "a repeat adds nothing")
      assert.isTrue(yield* repo.record({ ...call, aggregator: "playfiver" }), "another aggregator numbers its own")
      const [first, other, ...more] = mine(yield* repo.receivedWithin(Duration.hours(1), 10_000), call.txnId)
      assert.isEmpty(more)
      const { ref, receivedAt, ...kept } = first
      assert.deepStrictEqual(kept, call, "the first one, as sent")
      assert.isAbove(ref, 0)
      assert.instanceOf(receivedAt, Date)
      assert.deepStrictEqual([other.aggregator, other.amount], ["playfiver", "0.001"])
      assert.isTrue(other.ref !== first.ref)
    }))

  it.effect("what was received is read oldest first, within the time asked, up to the limit", () =>
    Effect.gen(function*() {
      const repo = yield* UnreadableCallRepo
      const [a, b] = [yield* givenCall, yield* givenCall]
      yield* repo.record(a)
      yield* repo.record({ ...b, amount: "10.5", currency: "JPY" })
      const read = mine(yield* repo.receivedWithin(Duration.hours(1), 10_000), a.txnId, b.txnId)
      assert.deepStrictEqual(read.map((call) => [call.txnId, call.amount, call.currency]), [
        [a.txnId, "0.001", "BRL"],
        [b.txnId, "10.5", "JPY"]
      ])
      assert.isAtMost(read[0].receivedAt.getTime(), read[1].receivedAt.getTime())
      assert.isEmpty(mine(yield* repo.receivedWithin(Duration.zero, 10_000), a.txnId, b.txnId), "none within no time")
      assert.lengthOf(yield* repo.receivedWithin(Duration.hours(1), 1), 1)
    }))
}
