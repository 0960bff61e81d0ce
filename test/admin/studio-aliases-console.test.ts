/**
 * The studio aliases in the console, as a person uses them, over PostgreSQL with two aggregators (CASINO_GATEWAY=
 * playfiver,hub88, both at their fakes) and a real headless Chromium: the operator logs in, opens Casino, takes
 * Hub88's "Crazy Tooth Studio" as PlayFiver's "Pragmatic Play"; the page lists the alias and the studio as one both
 * offer, and the partner's /providers lists one of the two. A chain is refused with its reason beside the form; the
 * alias removed, both studios are listed again.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { givenAdmin } from "../support/AdminConsole.ts"
import { Browser, newPage, step } from "../support/Browser.ts"
import { live } from "../support/live.ts"
import { logIn, openSection } from "../support/PanelSteps.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { givenPartner, givenSyncedCatalog } from "../support/TestApp.ts"
import { TwoAggregatorsApp } from "../support/TwoAggregators.ts"

layer(Layer.merge(TwoAggregatorsApp(), Browser.layer), live)("the studio aliases in the console", (it) => {
  it.effect("an alias added merges a second aggregator's studio for partners; a chain is refused; removed, it splits", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      yield* givenAdmin("aliases@example.com")
      const { token } = yield* givenPartner()
      const client = yield* partnerClient(token)
      const providers = Effect.map(client.casino.providers(), (answer) => answer.data.list.map((p) => p.provider))
      assert.deepStrictEqual(yield* providers, ["crazy-tooth-studio", "pg-soft", "pragmatic-play"])

      const page = yield* newPage()
      yield* logIn(page, "/admin", "aliases@example.com")
      yield* openSection(page, "Casino")
      const section = page.getByRole("region", { name: "Studio aliases" })
      assert.include(yield* step(() => section.innerText()), "No alias: studios are matched by their names alone.")

      const form = page.getByRole("form", { name: "Add a studio alias" })
      yield* step(() => form.getByLabel("Alias").fill("Crazy Tooth Studio"))
      yield* step(() => form.getByLabel("Studio").fill("Pragmatic Play"))
      yield* step(() => form.getByRole("button", { name: "Add alias" }).click())
      yield* step(() => page.getByText("crazytoothstudio is taken as pragmaticplay.").waitFor())
      // The page is drawn again after the change: wait for the new row, not the old page's readiness.
      const row = page.getByRole("table", { name: "Studio aliases" }).getByRole("row").filter({
        hasText: "crazytoothstudio"
      })
      yield* step(() => row.waitFor())
      assert.include(yield* step(() => row.innerText()), "pragmaticplay")
      const shared = page.getByRole("table", { name: "Studios several aggregators offer" }).getByRole("row")
        .filter({ hasText: "Crazy Tooth Studio (hub88)" })
      assert.include(yield* step(() => shared.innerText()), "Pragmatic Play (playfiver)")
      assert.deepStrictEqual(yield* providers, ["pg-soft", "pragmatic-play"], "one studio where there were two")

      // A chain: Pragmatic Play is the studio of an alias, so it may not be an alias itself. The reason is shown.
      const again = page.getByRole("form", { name: "Add a studio alias" })
      yield* step(() => again.getByLabel("Alias").fill("Pragmatic Play"))
      yield* step(() => again.getByLabel("Studio").fill("PG Soft"))
      yield* step(() => again.getByRole("button", { name: "Add alias" }).click())
      yield* step(() =>
        page.getByText("\"pragmaticplay\" is the studio of the alias \"crazytoothstudio\"", { exact: false })
          .waitFor()
      )
      assert.deepStrictEqual(yield* providers, ["pg-soft", "pragmatic-play"])

      yield* step(() => row.getByRole("button", { name: "Remove crazytoothstudio" }).click())
      yield* step(() => page.getByText("The alias crazytoothstudio is removed.").waitFor())
      yield* step(() => page.getByRole("region", { name: "Studio aliases" }).getByText("No alias:").waitFor())
      assert.deepStrictEqual(yield* providers, ["crazy-tooth-studio", "pg-soft", "pragmatic-play"])
    }))
})
