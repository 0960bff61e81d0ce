import { assert, type Vitest } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import type { PartnerRepo } from "../../../src/partners/PartnerRepo.ts"
import { leaseLifetime, StreamLeases } from "../../../src/sports/stream/StreamLeases.ts"
import { givenRepoPartner } from "../../support/RepoPartner.ts"

/**
 * What StreamLeases promises, whichever form keeps it: run over PostgreSQL and over memory by stream-leases.test.ts.
 * `pass` lets time pass for every lease (the SQL moves their ends back, memory moves the test's clock on).
 */
export const streamLeasesSpec = <R>(
  it: Vitest.MethodsNonLive<StreamLeases | PartnerRepo | R>,
  pass: (by: Duration.Duration) => Effect.Effect<void, never, R>
) => {
  const instance = () => `instance-${randomBytes(3).toString("hex")}`

  it.effect("leases are taken up to the limit of each partner environment, and a released one frees its place", () =>
    Effect.gen(function*() {
      const leases = yield* StreamLeases
      const [acme, other] = [yield* givenRepoPartner, yield* givenRepoPartner]
      const on = instance()
      const take = (partnerId: number, environment: "live" | "test" = "live") =>
        leases.acquire({ partnerId, environment, instance: on, limit: 2 })
      const [a, b, c] = [yield* take(acme.id), yield* take(acme.id), yield* take(acme.id)]
      assert.isTrue(Option.isSome(a) && Option.isSome(b) && Option.isNone(c), "two of two, then none")
      assert.notStrictEqual(Option.getOrThrow(a), Option.getOrThrow(b))
      assert.isTrue(Option.isSome(yield* take(acme.id, "test")), "the other environment counts apart")
      assert.isTrue(Option.isSome(yield* take(other.id)), "and another partner")
      yield* leases.release(Option.getOrThrow(a))
      assert.isTrue(Option.isSome(yield* take(acme.id)))
      assert.isTrue(Option.isNone(yield* take(acme.id)))
    }))

  it.effect("connects racing for the last places never pass the limit", () =>
    Effect.gen(function*() {
      const leases = yield* StreamLeases
      const acme = yield* givenRepoPartner
      const on = instance()
      const taken = yield* Effect.all(
        Array.from({ length: 6 }, () =>
          leases.acquire({ partnerId: acme.id, environment: "live", instance: on, limit: 3 })),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(taken.filter(Option.isSome).length, 3)
    }))

  it.effect("a lease not renewed within its lifetime no longer counts; one renewed does, and only the ones named; an instance's leases go together", () =>
    Effect.gen(function*() {
      const leases = yield* StreamLeases
      const [acme, other] = [yield* givenRepoPartner, yield* givenRepoPartner]
      const [gone, alive] = [instance(), instance()]
      const take = (partnerId: number, on: string) =>
        leases.acquire({ partnerId, environment: "live", instance: on, limit: 1 })
      assert.isTrue(Option.isSome(yield* take(acme.id, gone)))
      const renewed = Option.getOrThrow(yield* take(other.id, alive))
      // A lease of the same instance whose stream never ran: not named, not renewed.
      const third = yield* givenRepoPartner
      assert.isTrue(Option.isSome(yield* take(third.id, alive)))
      yield* pass(Duration.sum(leaseLifetime, Duration.seconds(1)))
      yield* leases.renew(alive, [renewed])
      assert.isTrue(Option.isSome(yield* take(acme.id, alive)), "the gone instance's lease expired")
      assert.isTrue(Option.isNone(yield* take(other.id, gone)), "the renewed one still holds the place")
      assert.isTrue(Option.isSome(yield* take(third.id, gone)), "the one not named lapsed")
      yield* leases.releaseAll(alive)
      assert.isTrue(Option.isSome(yield* take(other.id, gone)))
      assert.isTrue(Option.isSome(yield* take(acme.id, gone)), "both of the instance's leases were given up")
    }))
}
