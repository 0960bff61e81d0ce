import { Context, Effect, Layer } from "effect"

/**
 * Builds API group handler layers where only `keys` are visible.
 *
 * HttpApiBuilder.group keeps the whole context its layer is built in and
 * merges it into the context of every request the group serves. Built inside
 * the full application that is a copy of some forty services per request,
 * about a sixth of the CPU of an authenticated /status. The handlers take
 * their services once, when the group is built, and the middleware is looked
 * up then too; so a group needs to see only those, and each request keeps the
 * serving context it already has for everything else.
 *
 * The layer's requirements must be among `keys`, so a service a handler
 * starts using and that is not listed is a type error, not a runtime one.
 */
export const seeingOnly =
  <const Keys extends ReadonlyArray<Context.Key<any, any>>>(...keys: Keys) =>
  <A, E, R extends Keys[number]["Identifier"]>(
    layer: Layer.Layer<A, E, R>
  ): Layer.Layer<A, E, Keys[number]["Identifier"]> =>
    Layer.fromBuild((memoMap, scope) =>
      Effect.updateContext(
        Layer.buildWithMemoMap(layer, memoMap, scope),
        (context: Context.Context<Keys[number]["Identifier"]>) => Context.pick(...keys)(context)
      )
    )
