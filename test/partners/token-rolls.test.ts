/**
 * Token rolls of one environment at once, over PostgreSQL: serialised per environment, so none fails on the unique
 * index of the current token (a 500), and a "stop now" roll beside an overlapping one always ends the token it was
 * meant to end, whichever comes first.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Option } from "effect"
import { Partners } from "../../src/partners/Partners.ts"
import { live } from "../support/live.ts"
import { givenPartner, TestApp } from "../support/TestApp.ts"

layer(TestApp(), live)("token rolls at once", (it) => {
  it.effect("overlapping and stop-now rolls of one environment at once: all succeed, the leaked token is gone", () =>
    Effect.gen(function*() {
      const partners = yield* Partners
      for (let round = 0; round < 5; round++) {
        const slug = `rolls-${round}`
        const { partner, token: leaked } = yield* givenPartner({ slug })
        const rolls = yield* Effect.exit(Effect.all([
          partners.rotateToken(slug, "live", undefined, Duration.hours(168)),
          partners.rotateToken(slug, "live"),
          partners.rotateToken(slug, "live", undefined, Duration.hours(1)),
          partners.rotateToken(slug, "live")
        ], { concurrency: "unbounded" }))
        assert.isTrue(Exit.isSuccess(rolls), `round ${round}: every roll succeeds (${String(rolls)})`)
        assert.isTrue(Option.isNone(yield* partners.authenticate(leaked)), `round ${round}: the leaked token is gone`)
        const current = (yield* partners.tokensOf(partner)).filter((token) =>
          token.environment === "live" && token.expiresAt === null
        )
        assert.strictEqual(current.length, 1, "one current token")
      }
    }))
})
