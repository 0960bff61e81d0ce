/**
 * The admin API's controls for what the wallet keeps apart: a partner's player mode (shown in its view, set
 * on the partner update, audited on its own) and clearing its test data (audited, answers the counts, no
 * live row touched).
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { NotFound } from "../../src/api/admin/AdminErrors.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { adminClient, adminRequest, givenAdmin, loginAs } from "../support/AdminConsole.ts"
import { live } from "../support/live.ts"
import { TestApp } from "../support/TestApp.ts"

layer(TestApp(), live)("player mode and test data through the admin API", (it) => {
  it.effect("the player mode is shown, set alone or with other settings, refused when unknown, and audited", () =>
    Effect.gen(function*() {
      yield* givenAdmin("modes@example.com")
      const session = yield* loginAs("modes@example.com")
      const api = yield* adminClient(session)
      const created = yield* api.partners.create({ payload: { name: "Mode Bets" } })
      assert.strictEqual(created.partner.playerMode, "persisted")
      const slug = created.partner.slug

      const refused = yield* adminRequest("PATCH", `/admin/api/partners/${slug}`, {
        session,
        json: { player_mode: "anonymous" }
      })
      assert.strictEqual(refused.status, 422)

      const shadow = yield* api.partners.update({ params: { slug }, payload: { player_mode: "shadow" } })
      assert.strictEqual(shadow.partner.playerMode, "shadow")
      assert.strictEqual((yield* api.partners.show({ params: { slug } })).partner.playerMode, "shadow")
      const both = yield* api.partners.update({
        params: { slug },
        payload: { commission_percent: 3, player_mode: "persisted" }
      })
      assert.deepStrictEqual([both.partner.commissionPercent, both.partner.playerMode], [3, "persisted"])
      const listed = (yield* api.partners.list({ query: { search: slug } })).partners
      assert.deepStrictEqual(listed.map((partner) => partner.playerMode), ["persisted"])

      const audit = yield* api.system.audit({ query: { target: `partner:${slug}` } })
      // Newest first; a mode alone records no empty partner.update.
      assert.deepStrictEqual(audit.entries.map((entry) => [entry.action, entry.before, entry.after]).slice(0, 3), [
        ["partner.set-player-mode", { player_mode: "shadow" }, { player_mode: "persisted" }],
        ["partner.update", audit.entries[1].before, audit.entries[1].after],
        ["partner.set-player-mode", { player_mode: "persisted" }, { player_mode: "shadow" }]
      ])
      assert.strictEqual(audit.entries.filter((entry) => entry.action === "partner.update").length, 1)
    }))

  it.effect("clearing test data deletes the partner's test players only, answers the counts, and is audited", () =>
    Effect.gen(function*() {
      yield* givenAdmin("clear@example.com")
      const session = yield* loginAs("clear@example.com")
      const api = yield* adminClient(session)
      const created = yield* api.partners.create({ payload: { name: "Clear Bets" } })
      const slug = created.partner.slug
      const players = yield* PartnerPlayers
      const arrive = (environment: "live" | "test", externalPlayerId: string) =>
        players.arrive({
          partnerId: created.partner.id,
          environment,
          externalPlayerId,
          currency: "BRL",
          name: null,
          email: null,
          balance: 1000n
        })
      yield* arrive("live", "same-id")
      yield* arrive("test", "same-id")
      yield* arrive("test", "other-id")

      const answer = yield* api.partners.clearTestData({ params: { slug } })
      assert.strictEqual(answer.environment, "test")
      assert.deepStrictEqual(answer.cleared, { players: 2, rounds: 0, transactions: 0, callbacks: 0, statements: 0 })
      assert.strictEqual(answer.partner.slug, slug)
      const sql = yield* SqlClient.SqlClient
      const left = yield* sql<
        { environment: string }
      >`SELECT environment FROM partner_players WHERE partner_id = ${created.partner.id}`
      assert.deepStrictEqual(left.map((row) => row.environment), ["live"])

      const audit = yield* api.system.audit({ query: { target: `partner:${slug}` } })
      assert.deepStrictEqual([audit.entries[0].action, audit.entries[0].after], [
        "partner.clear-test-data",
        { environment: "test", players: 2, rounds: 0, transactions: 0, callbacks: 0, statements: 0 }
      ])
      assert.instanceOf(
        yield* Effect.flip(api.partners.clearTestData({ params: { slug: "no-such-partner" } })),
        NotFound
      )
    }))
})
