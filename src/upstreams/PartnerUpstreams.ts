import { Context, Effect, Layer } from "effect"
import { CurrentPartner, PartnerUpstreams } from "../api/Security.ts"
import { type Environment, environments } from "../domain/Environment.ts"
import { keyOf, Upstreams, type UpstreamServices } from "./Upstreams.ts"

/**
 * The server side of PartnerUpstreams: each request gets the upstreams of its partner's key from the one map. Each
 * key's services are taken from the map once, when the middleware is built, and held for as long as it lives (the
 * map builds every key at start and keeps it), so a request adds them to its context without asking the map (a
 * look-up by a structurally hashed key, a scope and a finalizer per request).
 */
export const layer = Layer.effect(
  PartnerUpstreams,
  Effect.gen(function*() {
    const upstreams = yield* Upstreams
    const contexts = new Map<Environment, Context.Context<UpstreamServices | Upstreams>>()
    for (const environment of environments) {
      const services = yield* upstreams.contextEffect(keyOf({ environment }))
      contexts.set(environment, Context.add(services, Upstreams, upstreams))
    }
    return PartnerUpstreams.of((httpEffect) =>
      Effect.flatMap(
        Effect.service(CurrentPartner),
        (partner) =>
          Effect.updateContext(
            httpEffect,
            (context: Context.Context<never>) => Context.merge(context, contexts.get(partner.environment)!)
          )
      )
    )
  })
)
