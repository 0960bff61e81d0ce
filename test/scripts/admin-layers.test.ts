import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import { CasinoGateway } from "../../src/casino/CasinoGateway.ts"
import { CatalogSync } from "../../src/casino/CatalogSync.ts"
import { CallbackOutbox } from "../../src/wallet/outbox/CallbackOutbox.ts"
import { WalletLedger } from "../../src/wallet/WalletLedger.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { AdminLayers } from "../../scripts/admin/layers.ts"
import { SportsProvider } from "../../src/sports/SportsProvider.ts"
import { live } from "../support/live.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { TestConfig } from "../support/TestApp.ts"

/** The services a layer hands its command, built over the test database. */
const built = <A, E, R>(services: Layer.Layer<A, E, R>) => Effect.scoped(Layer.build(services))

layer(TestDatabase.pipe(Layer.provideMerge(TestConfig())), live)("the admin CLI's layers", (it) => {
  it.effect("each command group builds what it uses: `partners` neither the casino gateway nor the sports provider", () =>
    Effect.gen(function*() {
      const has = (context: Context.Context<never>, key: Context.Key<any, any>) =>
        Context.getOption(context, key)._tag === "Some"
      const partners = (yield* built(AdminLayers.partners)) as Context.Context<never>
      assert.isTrue(has(partners, Partners))
      for (const other of [CasinoGateway, SportsProvider, CasinoCatalog, CallbackOutbox, WalletLedger]) {
        assert.isFalse(has(partners, other), other.key)
      }
      const catalog = (yield* built(AdminLayers.casinoCatalog)) as Context.Context<never>
      assert.deepStrictEqual([has(catalog, CasinoCatalog), has(catalog, CasinoGateway)], [true, false])
      const sync = (yield* built(AdminLayers.casinoSync)) as Context.Context<never>
      assert.deepStrictEqual([has(sync, CatalogSync), has(sync, SportsProvider)], [true, false])
      assert.isTrue(has((yield* built(AdminLayers.callbacks)) as Context.Context<never>, CallbackOutbox))
      assert.isTrue(has((yield* built(AdminLayers.wallet)) as Context.Context<never>, WalletLedger))
    }))
})
