/**
 * The studio aliases over the admin API and the CLI, over PostgreSQL with two aggregators (CASINO_GATEWAY=
 * playfiver,hub88, both at their fakes): Hub88's "Crazy Tooth Studio" taken as PlayFiver's "Pragmatic Play" makes
 * them one studio, served by PlayFiver (the first listed), so the partner's /providers lists one of the two; the
 * change is audited and undone by a removal. Every refusal is a 422 naming the field and leaves nothing stored; two
 * opposite sets at once never both pass; an unknown alias is a 404; a viewer is refused.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { adminRequest, givenAdmin, loginAs } from "../support/AdminConsole.ts"
import { admin } from "../support/AdminCli.ts"
import { eventually, live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { givenPartner, givenSyncedCatalog } from "../support/TestApp.ts"
import { TwoAggregatorsApp } from "../support/TwoAggregators.ts"

const aliasPath = (alias: string) => `/admin/api/casino/studio-aliases/${encodeURIComponent(alias)}`

/** The slugs the partner's /providers lists. */
const partnerProviders = Effect.gen(function*() {
  const { token } = yield* givenPartner()
  const client = yield* partnerClient(token)
  return Effect.map(client.casino.providers(), (answer) => answer.data.list.map((p) => p.provider))
})

const keptAliases = (session: { cookie: string; csrf: string }) =>
  Effect.map(
    adminRequest("GET", "/admin/api/casino/studio-aliases", { session }),
    (answer) => answer.body.aliases as ReadonlyArray<{ alias: string; studio: string }>
  )

layer(TwoAggregatorsApp(), live)("studio aliases", (it) => {
  it.effect("an alias set from typed names merges a second aggregator's studio into one; audited; removed, it splits", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const email = "alias-operator@example.com"
      yield* givenAdmin(email)
      const session = yield* loginAs(email)
      const providers = yield* partnerProviders
      assert.deepStrictEqual(yield* providers, ["crazy-tooth-studio", "pg-soft", "pragmatic-play"])

      const set = yield* adminRequest("PUT", aliasPath("Crazy Tooth Studio"), {
        session,
        json: { studio: "Pragmatic Play" }
      })
      assert.strictEqual(set.status, 200, JSON.stringify(set.body))
      assert.deepStrictEqual(set.body.alias, { alias: "crazytoothstudio", studio: "pragmaticplay" })
      assert.deepStrictEqual(yield* keptAliases(session), [{ alias: "crazytoothstudio", studio: "pragmaticplay" }])
      assert.deepStrictEqual(yield* providers, ["pragmatic-play", "pg-soft"].sort())

      const view = yield* adminRequest("GET", "/admin/api/casino/providers", { session })
      const merged = (view.body.studios as ReadonlyArray<{ studio: string; offered_by: Array<string> }>)
        .find((studio) => studio.studio === "pragmaticplay")
      assert.deepStrictEqual(merged?.offered_by, ["playfiver", "hub88"])

      const removed = yield* adminRequest("DELETE", aliasPath("crazytoothstudio"), { session })
      assert.strictEqual(removed.status, 200)
      assert.deepStrictEqual(removed.body.alias, { alias: "crazytoothstudio", studio: "pragmaticplay" })
      assert.deepStrictEqual(yield* providers, ["crazy-tooth-studio", "pg-soft", "pragmatic-play"])
      assert.deepStrictEqual(yield* keptAliases(session), [])

      const again = yield* adminRequest("DELETE", aliasPath("Crazy Tooth Studio"), { session })
      assert.strictEqual(again.status, 404)
      assert.deepStrictEqual(again.body, { success: false, message: "No studio alias \"Crazy Tooth Studio\"." })

      const trail = yield* adminRequest("GET", "/admin/api/audit?target=studio-alias:crazytoothstudio", { session })
      const entries = (trail.body as { entries: ReadonlyArray<{ action: string; before: unknown; after: unknown }> })
        .entries
      assert.deepStrictEqual(entries.map((entry) => [entry.action, entry.before, entry.after]), [
        ["casino.studio-alias", { studio: "pragmaticplay" }, null],
        ["casino.studio-alias", null, { studio: "pragmaticplay" }]
      ])
    }))

  it.effect("refusals are 422s naming the field, with the reason; nothing is stored", () =>
    Effect.gen(function*() {
      const email = "alias-refusals@example.com"
      yield* givenAdmin(email)
      const session = yield* loginAs(email)
      const put = (alias: string, json: unknown) => adminRequest("PUT", aliasPath(alias), { session, json })
      const kept = yield* put("PG Soft Games", { studio: "PG Soft" })
      assert.strictEqual(kept.status, 200)

      const refusals: ReadonlyArray<[string, unknown, string, RegExp]> = [
        ["Nameless", { studio: "!!!" }, "studio", /has no letter or digit/],
        ["PG-SOFT", { studio: "pg soft" }, "studio", /are one studio already \(pgsoft\)/],
        ["Pocket", { studio: "y".repeat(101) }, "studio", /longer than 100 characters/],
        ["PG Soft", { studio: "Pocket Games" }, "alias", /"pgsoft" is the studio of the alias "pgsoftgames"/],
        ["Pocket", { studio: "PG Soft Games" }, "studio", /"pgsoftgames" is itself an alias of "pgsoft"/],
        ["Pocket", {}, "studio", /./]
      ]
      for (const [alias, body, field, reason] of refusals) {
        const refused = yield* put(alias, body)
        assert.strictEqual(refused.status, 422, `${alias} ${JSON.stringify(body)}: ${JSON.stringify(refused.body)}`)
        assert.isFalse(refused.body.success)
        assert.deepStrictEqual(Object.keys(refused.body.errors), [field])
        assert.match(refused.body.errors[field].join(" "), reason)
      }
      // An alias past 100 characters as sent never reaches the endpoint: the router's own bound on a path
      // parameter answers first, with the envelope's 404 (the CLI, which takes it as an argument, gets the 422).
      const long = yield* put("x".repeat(101), { studio: "PG Soft" })
      assert.deepStrictEqual([long.status, long.body], [404, { success: false, message: "Route not found." }])
      assert.deepStrictEqual(yield* keptAliases(session), [{ alias: "pgsoftgames", studio: "pgsoft" }])
      assert.strictEqual((yield* adminRequest("DELETE", aliasPath("PG Soft Games"), { session })).status, 200)
    }))

  it.effect("two opposite sets at once: one passes, the other is the chain refusal", () =>
    Effect.gen(function*() {
      const email = "alias-race@example.com"
      yield* givenAdmin(email)
      const session = yield* loginAs(email)
      for (let round = 0; round < 5; round++) {
        const [a, b] = [`race a ${round}`, `race b ${round}`]
        const answers = yield* Effect.all([
          adminRequest("PUT", aliasPath(a), { session, json: { studio: b } }),
          adminRequest("PUT", aliasPath(b), { session, json: { studio: a } })
        ], { concurrency: "unbounded" })
        assert.deepStrictEqual(answers.map((answer) => answer.status).sort(), [200, 422], `round ${round}`)
        const kept = (yield* keptAliases(session)).filter((alias) => alias.alias.startsWith("race"))
        assert.strictEqual(kept.length, 1)
        yield* adminRequest("DELETE", aliasPath(kept[0]!.alias), { session })
      }
    }))

  it.effect("beyond 500 aliases a new one is refused; a kept one may still change", () =>
    Effect.gen(function*() {
      const email = "alias-limit@example.com"
      yield* givenAdmin(email)
      const session = yield* loginAs(email)
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO casino_studio_aliases (alias, studio)
                 SELECT 'filler' || n, 'fillerstudio' FROM generate_series(1, 500) AS n`
      const refused = yield* adminRequest("PUT", aliasPath("One More"), { session, json: { studio: "PG Soft" } })
      assert.strictEqual(refused.status, 422)
      assert.deepStrictEqual(refused.body.errors, {
        alias: ["There are 500 aliases already, the most kept: remove one first."]
      })
      const changed = yield* adminRequest("PUT", aliasPath("filler7"), { session, json: { studio: "PG Soft" } })
      assert.strictEqual(changed.status, 200)
      yield* sql`DELETE FROM casino_studio_aliases WHERE alias LIKE 'filler%'`
    }))

  it.effect("a viewer may read the aliases but not change them", () =>
    Effect.gen(function*() {
      yield* givenAdmin("alias-viewer@example.com", "viewer")
      const viewer = yield* loginAs("alias-viewer@example.com")
      assert.strictEqual(
        (yield* adminRequest("GET", "/admin/api/casino/studio-aliases", { session: viewer })).status,
        200
      )
      const set = yield* adminRequest("PUT", aliasPath("Pocket"), { session: viewer, json: { studio: "PG Soft" } })
      assert.strictEqual(set.status, 403)
      assert.strictEqual((yield* adminRequest("DELETE", aliasPath("Pocket"), { session: viewer })).status, 403)
    }))

  it.effect("the CLI sets, lists and removes aliases, audited; the running service's catalogue follows", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const providers = yield* partnerProviders
      const set = yield* admin("casino", "alias", "set", "Crazy Tooth Studio", "Pragmatic Play")
      assert.strictEqual(set.exitCode, 0, set.stderr)
      assert.deepStrictEqual(JSON.parse(set.stdout), { alias: "crazytoothstudio", studio: "pragmaticplay" })
      yield* eventually(providers, (list) => !list.includes("crazy-tooth-studio"), "the merged studio")
      const listed = yield* admin("casino", "alias", "list")
      assert.deepStrictEqual(JSON.parse(listed.stdout), [{ alias: "crazytoothstudio", studio: "pragmaticplay" }])
      const long = yield* admin("casino", "alias", "set", "x".repeat(101), "PG Soft")
      assert.notStrictEqual(long.exitCode, 0)
      assert.match(long.stderr, /The alias is longer than 100 characters/)

      const chain = yield* admin("casino", "alias", "set", "Pragmatic Play", "Pocket")
      assert.notStrictEqual(chain.exitCode, 0)
      assert.match(chain.stderr, /"pragmaticplay" is the studio of the alias "crazytoothstudio"/)

      const removed = yield* admin("casino", "alias", "remove", "crazytoothstudio")
      assert.strictEqual(removed.exitCode, 0, removed.stderr)
      yield* eventually(providers, (list) => list.includes("crazy-tooth-studio"), "the studios apart again")
      const unknown = yield* admin("casino", "alias", "remove", "crazytoothstudio")
      assert.notStrictEqual(unknown.exitCode, 0)
      assert.match(unknown.stderr, /No studio alias "crazytoothstudio"/)
    }))
})
