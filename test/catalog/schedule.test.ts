import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { CatalogSchedule } from "../../src/catalog/CatalogSchedule.ts"
import { CatalogApp, type World } from "../support/CatalogApp.ts"
import { worldEvents } from "../support/CatalogScripts.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { eventually, live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { givenPartner } from "../support/TestApp.ts"

const world: World = { events: worldEvents() }

layer(
  CatalogSchedule.pipe(
    Layer.provideMerge(CatalogApp(world, { catalog: { refreshInterval: Duration.millis(600), liveRefreshInterval: Duration.millis(150) } }))
  ),
  live
)("the scheduled refresh", (it) => {
  it.effect("fills an empty catalog at start-up, then follows the provider with no partner asking", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      // Start-up waited for the first refresh: the feeds are there already.
      const client = yield* partnerClient(token)
      const overview = yield* client.catalog.overview()
      assert.strictEqual(overview.data.events_total, 129)

      // A goal in play is picked up by the live refresh.
      world.events = worldEvents().map((event) => event.id === "80001" ? { ...event, ss: "3-2", minute: 71 } : event)
      const liveEntry = yield* eventually(
        client.catalog.live({ query: { per_page: 50 } }),
        (response) => response.data.results.some((e) => e.event_id === "80001" && e.score === "3-2"),
        "the new score in the live feed"
      )
      assert.deepInclude(
        liveEntry.data.results.find((e) => e.event_id === "80001"),
        { score: "3-2", minute: 71 }
      )

      // A new fixture is picked up by the full refresh.
      const [template] = worldEvents().filter((event) => event.timeStatus === 0)
      world.events = [...world.events, { ...template, id: "79999" }]
      yield* eventually(
        client.catalog.overview(),
        (response) => response.data.events_total === 130,
        "the new fixture in the catalog"
      )
      const fake = yield* FakeUpstream
      assert.isAbove(fake.calls.filter((call) => call.path === "/v3/events/inplay").length, 1)
    }))
})
