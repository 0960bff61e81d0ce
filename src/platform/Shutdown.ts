import { Data, Deferred, Duration, Effect, Fiber, Layer, Runtime, Scope } from "effect"

/** A stop that did not end within SHUTDOWN_TIMEOUT: the process exits 1, the work left unfinished. */
export class ShutdownTimedOut extends Data.TaggedError("ShutdownTimedOut")<{ readonly timeout: Duration.Duration }> {
  // Logged where it happens, with what it means; the exit code says the rest.
  override readonly [Runtime.errorReported] = false
  override readonly [Runtime.errorExitCode] = 1
}

/**
 * Builds `layer` and runs it until interrupted (SIGTERM, Ctrl-C), as
 * `Layer.launch` does, but its release (the HTTP drain, the background
 * work, the pools, in reverse order of building) is given `timeout` in all.
 * A release that is not over by then is left running, logged, and this fails
 * with ShutdownTimedOut, so that the process exits anyway.
 */
export const launchWithin = <ROut, E, RIn>(
  layer: Layer.Layer<ROut, E, RIn>,
  timeout: Duration.Duration
): Effect.Effect<never, E | ShutdownTimedOut, RIn> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const ran = yield* Effect.exit(restore(Effect.andThen(Layer.buildWithScope(layer, scope), Effect.never)))
      // The release and a timer race, each in a fiber of its own: the release cannot be interrupted, so it
      // is left behind (not waited for) when the timer wins.
      const ended = yield* Deferred.make<boolean>()
      const timer = yield* Effect.forkDetach(Effect.andThen(Effect.sleep(timeout), Deferred.succeed(ended, false)))
      yield* Effect.forkDetach(
        Scope.close(scope, ran).pipe(
          Effect.andThen(Deferred.succeed(ended, true)),
          Effect.andThen(Fiber.interrupt(timer))
        )
      )
      if (!(yield* Deferred.await(ended))) {
        yield* Effect.logError(
          `The stop took longer than SHUTDOWN_TIMEOUT (${Duration.format(timeout)}): exiting with its work unfinished`
        )
        return yield* new ShutdownTimedOut({ timeout })
      }
      return yield* ran
    })
  )
