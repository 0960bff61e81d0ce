/**
 * For handler specs over memory (HttpApiTest): the real PartnerUpstreams middleware over a map whose every key is
 * answered by the services the spec gives. A spec gives only those its group reaches; a handler reaching one it did
 * not give dies. Which environment reaches which upstreams is test/partners and test/sandbox's business.
 */
import { Context, Duration, Effect, Layer, LayerMap, Scope } from "effect"
import * as PartnerUpstreamsMiddleware from "../../src/upstreams/PartnerUpstreams.ts"
import { Upstreams, type UpstreamServices } from "../../src/upstreams/Upstreams.ts"

export const SpecUpstreams = PartnerUpstreamsMiddleware.layer.pipe(Layer.provide(Layer.effect(
  Upstreams,
  Effect.flatMap(Effect.context<never>(), (context) => {
    // Not the scope the layer is built in: a request keeps its own.
    const services = Context.omit(Scope.Scope)(context) as Context.Context<UpstreamServices>
    return LayerMap.make(() => Layer.succeedContext(services), { idleTimeToLive: Duration.infinity })
  })
)))
