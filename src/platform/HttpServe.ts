import { Context, Effect, Layer, Scope } from "effect"
import { HttpRouter, HttpServer } from "effect/http"

/** Every service of this application is keyed under this prefix (`partner-api/<area>/<Name>`). */
const applicationKeyPrefix = "partner-api/"

/**
 * The context a request fiber starts with: the serving context without the
 * application's own services. Routes take those when they are built, so at
 * request time they are dead weight, and not free: HttpApi merges each
 * group's context into every request's context, a copy of everything the
 * request carries (forty-odd services before, a dozen after). What stays is
 * the platform's: loggers and their level, tracer, HTTP platform, body limit.
 */
const requestTimeContext = <R>(context: Context.Context<R>): Context.Context<R> => {
  const kept = new Map<string, unknown>()
  for (const [key, value] of context.mapUnsafe) {
    if (!key.startsWith(applicationKeyPrefix)) kept.set(key, value)
  }
  return Context.makeUnsafe(kept)
}

/**
 * `HttpRouter.serve` (routes built with the application's services, in the
 * same memo map, so each service is still built once), with request fibers
 * that carry only the platform's services (see requestTimeContext). A route
 * that looked an application service up at request time would fail, so none
 * does: handlers, middleware and raw routes take their services when built.
 */
export const serveRoutes = <A, E, R, RS = never>(
  routes: Layer.Layer<A, E, R>,
  options: {
    readonly disableListenLog?: boolean
    /**
     * Run at a stop before the server drains: what ends long-lived answers (the sports change streams), which
     * the drain would otherwise wait for until it cuts them.
     */
    readonly beforeDrain?: Effect.Effect<void, never, RS>
  } = {}
): Layer.Layer<A, E, HttpServer.HttpServer | Exclude<R, HttpRouter.HttpRouter> | RS> => {
  const withRouter = Layer.provideMerge(routes, HttpRouter.layer)
  const served = Effect.contextWith((context: Context.Context<Scope.Scope>) =>
    Layer.buildWithMemoMap(withRouter, Layer.CurrentMemoMap.forkOrCreate(context), Context.get(context, Scope.Scope))
  ).pipe(
    Effect.map((built) => {
      const handler = Context.get(built, HttpRouter.HttpRouter).asHttpEffect()
      const serving = Layer.effectDiscard(Effect.updateContext(HttpServer.serveEffect(handler), requestTimeContext))
      // Built after the serving, so released before it: its finalizer runs before the server's drain.
      const beforeDrain = options.beforeDrain === undefined
        ? serving
        : Layer.effectDiscard(Effect.addFinalizer(() => options.beforeDrain!)).pipe(Layer.provideMerge(serving))
      return Layer.merge(beforeDrain, Layer.succeedContext(built))
    }),
    Layer.unwrap
  )
  // The router's handler is typed as needing anything (`unknown`), as in HttpRouter.serve; the routes' own
  // requirements are the layer's, so they are stated here as HttpRouter.serve states them.
  return (options.disableListenLog === true ? served : HttpServer.withLogAddress(served)) as Layer.Layer<
    A,
    E,
    HttpServer.HttpServer | Exclude<R, HttpRouter.HttpRouter> | RS
  >
}
