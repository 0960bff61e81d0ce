import { Cause, Effect, Formatter, Layer, Logger, References } from "effect"
import { AppConfig } from "./AppConfig.ts"

/**
 * One log entry as one flat JSON object:
 * `{"timestamp","level","message",...annotations,"cause"?}`.
 * effect's own JSON formatter walks every value defensively (cycles,
 * redaction); the values logged here are plain, so a single JSON.stringify
 * costs a fraction of that on the access-log hot path. Anything it cannot
 * serialise falls back to effect's formatter.
 */
export const jsonLine = Logger.make(({ cause, date, fiber, logLevel, message }) => {
  const entry: Record<string, unknown> = {
    timestamp: date.toISOString(),
    level: logLevel.toUpperCase(),
    message: Array.isArray(message) && message.length === 1 ? message[0] : message
  }
  const annotations = fiber.getRef(References.CurrentLogAnnotations)
  for (const key in annotations) {
    if (!(key in entry)) entry[key] = annotations[key]
  }
  if (cause.reasons.length > 0) entry.cause = Cause.pretty(cause)
  try {
    return JSON.stringify(entry)
  } catch {
    return Formatter.formatJson(entry)
  }
})

/**
 * JSON lines on stdout at the level LOG_LEVEL sets. Lines are written in
 * batches every few milliseconds: one write per batch instead of one per
 * line keeps the access log cheap under load. The last batch is flushed when
 * the service stops.
 */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const config = yield* AppConfig
  const batched = Logger.batched(jsonLine, {
    window: "5 millis",
    flush: (lines) => Effect.sync(() => process.stdout.write(lines.join("\n") + "\n"))
  })
  return Layer.mergeAll(
    Logger.layer([batched]),
    Layer.succeed(References.MinimumLogLevel, config.logLevel)
  )
}))
