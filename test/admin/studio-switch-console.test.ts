/**
 * The studio switch in the console, over PostgreSQL with two aggregators (CASINO_GATEWAY=playfiver,hub88, both at
 * their fakes) and a real headless Chromium: the casino page shows PG Soft, offered by both, served by PlayFiver
 * (the first listed); the operator switches it to Hub88; the page and the partner's catalogue follow, and the audit
 * trail records it; the System page shows each aggregator's state. A viewer is refused the change.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import { adminRequest, givenAdmin, loginAs } from "../support/AdminConsole.ts"
import { Browser, newPage, step } from "../support/Browser.ts"
import { live } from "../support/live.ts"
import { logIn, openSection } from "../support/PanelSteps.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { givenPartner, givenSyncedCatalog } from "../support/TestApp.ts"
import { TwoAggregatorsApp } from "../support/TwoAggregators.ts"

layer(Layer.merge(TwoAggregatorsApp(), Browser.layer), live)("the studio switch in the console", (it) => {
  it.effect("shows who serves a shared studio and moves it; the partner's catalogue and the audit trail follow", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      yield* givenAdmin("studios@example.com")
      const page = yield* newPage()
      yield* logIn(page, "/admin", "studios@example.com")
      yield* openSection(page, "Casino")
      const studios = page.getByRole("table", { name: "Studios several aggregators offer" })
      const row = studios.getByRole("row").filter({ hasText: "PG Soft (playfiver)" })
      assert.include(yield* step(() => row.innerText()), "playfiver (first in CASINO_GATEWAY)")

      yield* step(() => row.getByRole("button", { name: "Serve from hub88" }).click())
      yield* step(() => page.getByText("is served by hub88.").waitFor())
      // The page is drawn again after the change: wait for the new row, not the old page's readiness.
      yield* step(() => page.getByText("hub88 (chosen)").waitFor())
      const after = page.getByRole("table", { name: "Studios several aggregators offer" }).getByRole("row")
        .filter({ hasText: "PG Soft (playfiver)" })
      assert.include(yield* step(() => after.innerText()), "hub88 (chosen)")

      const { token } = yield* givenPartner()
      const client = yield* partnerClient(token)
      const games = yield* client.casino.games({ query: { provider: "pg-soft" } })
      assert.deepStrictEqual(games.data.games.map((g) => g.game_code), ["pgs_fortunetiger"])

      const session = yield* loginAs("studios@example.com")
      const trail = yield* adminRequest("GET", "/admin/api/audit?target=studio:pgsoft", { session })
      const entries = (trail.body as { entries: ReadonlyArray<{ action: string; after: unknown }> }).entries
      assert.deepStrictEqual(entries.map((entry) => [entry.action, entry.after]), [
        ["casino.studio-server", { served_by: "hub88", chosen: true }]
      ])

      // The System page shows each aggregator: configured, its last sync, the wallet calls the ledger recorded.
      yield* openSection(page, "System")
      const aggregators = page.getByRole("table", { name: "Casino aggregators" }).getByRole("row")
      const rows = yield* step(() => aggregators.allInnerTexts())
      const hub88 = rows.find((text) => text.startsWith("hub88"))!
      assert.include(hub88, "yes")
      assert.notInclude(hub88, "never", "its catalogue was synced")
      assert.isDefined(rows.find((text) => text.startsWith("playfiver")))

      // Back to the default, for the other tests of the file.
      yield* CasinoCatalog.use((catalog) => catalog.setStudioServer("pgsoft", "playfiver"))
    }))

  it.effect("a viewer may not switch; an aggregator that does not offer the studio is a 404", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      yield* givenAdmin("studio-viewer@example.com", "viewer")
      yield* givenAdmin("studio-operator@example.com")
      const viewer = yield* loginAs("studio-viewer@example.com")
      const refused = yield* adminRequest("POST", "/admin/api/casino/studios/pgsoft/serve/hub88", { session: viewer })
      assert.strictEqual(refused.status, 403)
      const operator = yield* loginAs("studio-operator@example.com")
      const absent = yield* adminRequest("POST", "/admin/api/casino/studios/crazytoothstudio/serve/playfiver", {
        session: operator
      })
      assert.strictEqual(absent.status, 404)
    }))
})
