import { Duration, Effect, Schedule, type Scope } from "effect"
import type { PartnerRepoService } from "./PartnerWrites.ts"

/**
 * When each token was last used, kept off the request's path: an admitted request only notes its token's hash in
 * memory (a map write, no I/O), and once every `interval` one statement writes every token noted since, with its
 * latest use; the database skips a token it already marked within the minute. So a token costs at most one write
 * per interval per instance, whatever its traffic, and the time shown is at most about `interval` old. What is
 * noted when the scope closes (a stop) is written then.
 */
export const make = Effect.fnUntraced(
  function*(repo: PartnerRepoService, interval: Duration.Duration): Effect.fn.Return<
    { readonly note: (hashBase64: string, at: number) => void; readonly flush: Effect.Effect<void> },
    never,
    Scope.Scope
  > {
    let noted = new Map<string, number>()
    const flush = Effect.suspend(() => {
      if (noted.size === 0) return Effect.void
      const uses = [...noted].map(([hash, at]) => ({ hash: Buffer.from(hash, "base64"), at: new Date(at) }))
      noted = new Map()
      return repo.recordTokenUse(uses).pipe(
        // Best effort: a lost "last used" is no reason to fail anything; the next use notes it again.
        Effect.catchDefect((defect) => Effect.logWarning("Recording when tokens were last used failed", defect))
      )
    })
    yield* Effect.addFinalizer(() => flush)
    yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced(Duration.max(interval, Duration.millis(10)))))
    return { note: (hashBase64, at) => void noted.set(hashBase64, at), flush }
  }
)
