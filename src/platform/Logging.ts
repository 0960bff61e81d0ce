import { Effect, Layer, Logger, References } from "effect"
import { AppConfig } from "./AppConfig.ts"

/** JSON lines on stdout, one object per log entry, at the level LOG_LEVEL sets. */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const config = yield* AppConfig
  return Layer.mergeAll(
    Logger.layer([Logger.consoleJson]),
    Layer.succeed(References.MinimumLogLevel, config.logLevel)
  )
}))
