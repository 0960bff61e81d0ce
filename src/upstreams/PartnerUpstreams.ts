import { Context, Effect, Layer } from "effect"
import { CurrentPartner, PartnerUpstreams } from "../api/Security.ts"
import { type Environment, environments } from "../domain/Environment.ts"
import { keyOf, Upstreams, type UpstreamServices } from "./Upstreams.ts"

/**
 * For each environment, what adds its upstreams to a request's context. Each key's services are taken from the map
 * once, when this is built, and held for as long as it lives (the map builds every key at start and keeps it), so a
 * request adds them to its context without asking the map (a look-up by a structurally hashed key, a scope and a
 * finalizer per request).
 */
export const upstreamsAdders = Effect.gen(function*() {
  const upstreams = yield* Upstreams
  // Each environment's services as entries, added one by one to a request's context: Context.merge would copy
  // the whole request context (every service of the app) on every request, an add does not.
  const entries = new Map<Environment, ReadonlyArray<readonly [string, unknown]>>()
  for (const environment of environments) {
    const services = yield* upstreams.contextEffect(keyOf({ environment }))
    entries.set(environment, [...Context.add(services, Upstreams, upstreams).mapUnsafe])
  }
  const withUpstreams = (environment: Environment) => <R>(context: Context.Context<R>) => {
    let next = context as Context.Context<R | UpstreamServices | Upstreams>
    for (const [key, service] of entries.get(environment)!) next = Context.addUnsafe(next, key, service)
    return next
  }
  const adders = new Map(environments.map((environment) => [environment, withUpstreams(environment)]))
  return (environment: Environment) => adders.get(environment)!
})

/** The server side of PartnerUpstreams: each request gets the upstreams of its partner's key from the one map. */
export const layer = Layer.effect(
  PartnerUpstreams,
  Effect.map(upstreamsAdders, (adderOf) =>
    PartnerUpstreams.of((httpEffect) =>
      Effect.flatMap(
        Effect.service(CurrentPartner),
        (partner) => Effect.updateContext(httpEffect, adderOf(partner.environment))
      )
    ))
)
