import { Console, Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { partnerApiPrefix } from "../domain/Partner.ts"
import { AppConfig, publicBaseUrl } from "../platform/AppConfig.ts"
import { Partners } from "./Partners.ts"

const demoSlug = "demo"

/**
 * The partner wallet this service runs itself for the demo partner, when it
 * runs one (the sandbox's, with the sandbox aggregator): its path here. The
 * layer graph provides it; by default there is none.
 */
export const DemoPartnerWallet = Context.Reference<{ readonly path: string } | undefined>(
  "partner-api/partners/DemoPartnerWallet",
  { defaultValue: () => undefined }
)

/**
 * Makes the embedded default usable at once. With DEMO_PARTNER_TOKEN set, a
 * `demo` partner is created active with that token when there is none; an
 * existing one keeps its token (an operator may have rotated it) and its
 * status. Without it, only the
 * embedded database (no DATABASE_URL) gets one, when it has no partner at
 * all, and its token is printed once (on stderr, apart from the JSON log)
 * (live and test) with a curl line to paste: a production database never gets a partner
 * nobody asked for, nor its token in a log. When the service runs the demo
 * partner's wallet itself (DemoPartnerWallet), a demo partner without a
 * callback_url, or with that wallet's URL of an earlier start (another PORT
 * or PUBLIC_URL), gets this start's.
 */
export const ensureDemoPartner = Effect.gen(function*() {
  const config = yield* AppConfig
  const partners = yield* Partners
  const sql = yield* SqlClient.SqlClient

  const created = yield* sql.withTransaction(Effect.gen(function*() {
    // Two instances starting on one empty database must not both create a partner.
    yield* sql`SELECT pg_advisory_xact_lock(hashtext('partner-api:demo-partner'))`
    if (Option.isSome(config.demoPartnerToken)) {
      // Only the partner it creates gets the setting's token: re-keying an existing one at every start would
      // undo a rotation an operator made (console or CLI) at the next restart, bringing a retired token back.
      if (Option.isNone(yield* Effect.option(partners.show(demoSlug)))) {
        yield* partners.create({
          name: "Demo Partner",
          slug: demoSlug,
          token: Redacted.value(config.demoPartnerToken.value)
        })
      }
      return Option.none<{ live: string; test: string }>()
    }
    if (Option.isSome(config.databaseUrl) || (yield* partners.count) > 0) {
      return Option.none<{ live: string; test: string }>()
    }
    const { test, token } = yield* partners.create({ name: "Demo Partner", slug: demoSlug })
    return Option.some({ live: token, test: test.token })
  })).pipe(Effect.orDie)

  // On the sandbox, the demo partner's wallet is the sandbox's own, so a spin moves money end to end.
  const ownWallet = yield* DemoPartnerWallet
  if (ownWallet !== undefined) {
    const demo = yield* Effect.option(partners.show(demoSlug))
    const wallet = `${publicBaseUrl(config)}${ownWallet.path}`
    // No callback URL, or the same wallet at whatever address this service had then: an operator's choice stays.
    const replaceable = (url: string | null) => url === null || URL.parse(url)?.pathname === ownWallet.path
    if (Option.isSome(demo) && demo.value.callbackUrl !== wallet && replaceable(demo.value.callbackUrl)) {
      yield* partners.update(demoSlug, { callbackUrl: wallet }).pipe(Effect.orDie)
    }
  }

  if (Option.isSome(created)) {
    const base = publicBaseUrl(config)
    yield* Console.error([
      "",
      "A demo partner was created. Its tokens are shown only this once:",
      "",
      `  live: ${created.value.live}`,
      `  test: ${created.value.test}   (reaches only the sandboxes)`,
      "",
      "Try it:",
      "",
      `  curl -H "Authorization: Bearer ${created.value.test}" ${base}${partnerApiPrefix}/status`,
      "",
      `API docs: ${base}/docs`,
      ""
    ].join("\n"))
  }
})

export const layer = Layer.effectDiscard(ensureDemoPartner)
