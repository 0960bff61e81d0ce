import { Context, Effect, Layer } from "effect"
import type { Snapshot } from "../../domain/SportsCatalog.ts"
import type { SyncBounds } from "../../domain/SportsCatalogSync.ts"

/**
 * The catalog's tie to the live change stream's log. What a publish sends
 * the stream: the repository calls `published` once a snapshot's records are
 * written, inside the publish's transaction (the in-memory repository, after
 * it), so the stream's log changes with the catalog or not at all; then
 * `positions` for the records it changed (a since read finds them by these).
 * The stream (src/sports/stream) provides it; the catalog neither knows nor
 * waits for who reads it.
 */
export class CatalogChanges extends Context.Service<CatalogChanges, {
  published(snapshot: Snapshot): Effect.Effect<void>
  /**
   * `count` (at least 1) positions of the log in a row, for the records a publish changed, drawn in commit order
   * (holding the log's lock to the publish's commit): the first. Undefined when the log could not be reached (a
   * catalog in memory, whose publish does not fail for it, asks again with its next publish).
   */
  positions(count: number): Effect.Effect<number | undefined>
  /** Where the log stands: its head, and its floor (the highest position pruned). */
  readonly bounds: Effect.Effect<SyncBounds>
}>()("partner-api/catalog/CatalogChanges") {
  /** Nobody streams this catalog (tests of the catalog alone): positions of a log of its own, never pruned. */
  static readonly none = Layer.sync(CatalogChanges, () => {
    let head = 0
    return CatalogChanges.of({
      published: () => Effect.void,
      positions: (count) =>
        Effect.sync(() => {
          head += count
          return head - count + 1
        }),
      bounds: Effect.sync(() => ({ head, floor: 0 }))
    })
  })
}
