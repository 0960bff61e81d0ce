import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"

/**
 * A partner row of its own for a repository's spec (whatever form PartnerRepo has): the rows of other tables
 * reference partners, by a foreign key in PostgreSQL and by look-up in memory.
 */
export const givenRepoPartner = Effect.gen(function*() {
  const slug = `p-${randomBytes(4).toString("hex")}`
  const token = () => ({ hash: randomBytes(32), prefix: "pak_x_" })
  const { partner } = yield* (yield* PartnerRepo).insert({
    name: `Partner ${slug}`,
    slug,
    status: "active",
    commissionPercent: 10,
    rateLimitPerMinute: null,
    environments: { live: { callbackUrl: null, token: token() }, test: { callbackUrl: null, token: token() } }
  }).pipe(Effect.orDie)
  return partner
})
