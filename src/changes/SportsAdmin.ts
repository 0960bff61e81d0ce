import { Context, Effect, Layer } from "effect"
import type { Actor } from "../domain/Admin.ts"
import type { PublishReport } from "../domain/SportsCatalog.ts"
import { AuditRepo } from "../identity/AuditRepo.ts"
import { SportsCatalog } from "../sports/catalog/SportsCatalog.ts"
import type { SportsProviderError } from "../sports/SportsProvider.ts"

/** The sports catalog as an operator refreshes it, through the catalog's service, with who asked in the audit trail. */

export class SportsAdmin extends Context.Service<SportsAdmin, {
  refresh(actor: Actor): Effect.Effect<PublishReport, SportsProviderError>
}>()("partner-api/changes/SportsAdmin") {
  static readonly layer = Layer.effect(
    SportsAdmin,
    Effect.gen(function*() {
      const sports = yield* SportsCatalog
      const audit = yield* AuditRepo
      return SportsAdmin.of({
        refresh: Effect.fn("SportsAdmin.refresh")(function*(actor: Actor) {
          // Every sport of CATALOG_SPORT_IDS: the request has nothing an operator could get wrong. Not one
          // transaction, as a casino sync: a refresh waits on the provider, and the schedule runs the same.
          const { report } = yield* sports.refresh(null).pipe(Effect.catchTag("InvalidSportsCatalogQuery", Effect.die))
          yield* audit.record(actor, { action: "sports.refresh", target: "sports:catalog", after: report })
          return report
        })
      })
    })
  )
}
