import { Context, Effect, Layer } from "effect"
import type { SyncReport } from "../casino/CasinoCatalogRules.ts"
import type { CasinoGatewayError } from "../casino/CasinoGateway.ts"
import { CatalogSync } from "../casino/CatalogSync.ts"
import type { Actor } from "../domain/Admin.ts"
import { AuditRepo } from "../identity/AuditRepo.ts"

/** A casino sync asked by an operator; the aggregator is asked, so it has a service of its own. */
export class CasinoSyncAdmin extends Context.Service<CasinoSyncAdmin, {
  sync(actor: Actor): Effect.Effect<SyncReport, CasinoGatewayError>
}>()("partner-api/changes/CasinoSyncAdmin") {
  static readonly layer = Layer.effect(
    CasinoSyncAdmin,
    Effect.gen(function*() {
      const sync = yield* CatalogSync
      const audit = yield* AuditRepo
      return CasinoSyncAdmin.of({
        sync: Effect.fn("CasinoSyncAdmin.sync")(function*(actor: Actor) {
          // Not one transaction: a sync waits on the aggregator, and is the same reconciliation the schedule
          // runs unaudited; the row records that an operator asked for one and what it changed.
          const report = yield* sync.run
          yield* audit.record(actor, { action: "casino.sync", target: "casino:catalog", after: report })
          return report
        })
      })
    })
  )
}
