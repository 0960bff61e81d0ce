import { Effect, References } from "effect"

/**
 * `f`, in a span named `name` while tracing is on (References.TracerEnabled: OTEL_EXPORTER_OTLP_ENDPOINT set,
 * platform/Tracing.ts), and plain while it is off. For the functions every request runs, in place of `Effect.fn(name)`,
 * which captures a stack at each call and makes a span (a no-op one when tracing is off) whether or not anyone reads
 * it. `f` is the untraced body (`Effect.fnUntraced`, or any function returning an effect).
 */
export const traced = <Args extends ReadonlyArray<unknown>, A, E, R>(
  name: string,
  f: (...args: Args) => Effect.Effect<A, E, R>
): (...args: Args) => Effect.Effect<A, E, R> =>
(...args) =>
  Effect.withFiber((fiber) => fiber.getRef(References.TracerEnabled) ? Effect.withSpan(f(...args), name) : f(...args))
