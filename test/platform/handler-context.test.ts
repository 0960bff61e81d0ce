import { assert, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { seeingOnly } from "../../src/platform/HandlerContext.ts"

class Needed extends Context.Service<Needed, { readonly value: number }>()("test/Needed") {}
class Unrelated extends Context.Service<Unrelated, { readonly value: string }>()("test/Unrelated") {}
class Seen extends Context.Service<Seen, ReadonlyArray<string>>()("test/Seen") {}

it.effect("seeingOnly builds a layer where only the listed services are visible", () =>
  Effect.gen(function*() {
    // What an API group keeps: the whole context its layer is built in.
    const captures = Layer.effect(
      Seen,
      Effect.gen(function*() {
        yield* Needed
        const context = yield* Effect.context<Needed>()
        return [...context.mapUnsafe.keys()].sort()
      })
    )
    const everything = Layer.mergeAll(
      Layer.succeed(Needed, { value: 1 }),
      Layer.succeed(Unrelated, { value: "x" })
    )

    const unrestricted = yield* Effect.service(Seen).pipe(Effect.provide(captures.pipe(Layer.provide(everything))))
    assert.include(unrestricted, "test/Unrelated")

    const restricted = yield* Effect.service(Seen).pipe(
      Effect.provide(captures.pipe(seeingOnly(Needed), Layer.provide(everything)))
    )
    // Layer building adds its own scope and memo map around whatever is visible.
    assert.deepStrictEqual(
      restricted.filter((key) => key.startsWith("test/")),
      ["test/Needed"]
    )
  }))
