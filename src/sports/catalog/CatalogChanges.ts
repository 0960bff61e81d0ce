import { Context, Effect, Layer } from "effect"
import type { Snapshot } from "../../domain/SportsCatalog.ts"

/**
 * What a publish sends the live change stream: the repository calls it once
 * a snapshot's records are written, inside the publish's transaction (the
 * in-memory repository, after it), so the stream's log changes with the
 * catalog or not at all. The stream (src/sports/stream) provides it; the
 * catalog neither knows nor waits for who reads it.
 */
export class CatalogChanges extends Context.Service<CatalogChanges, {
  published(snapshot: Snapshot): Effect.Effect<void>
}>()("partner-api/catalog/CatalogChanges") {
  /** Nobody streams this catalog (tests of the catalog alone). */
  static readonly none = Layer.succeed(CatalogChanges, CatalogChanges.of({ published: () => Effect.void }))
}
