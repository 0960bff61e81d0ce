import { Effect, Layer } from "effect"
import { CurrentPartner, PartnerUpstreams } from "../api/Security.ts"
import { keyOf, reaching, Upstreams } from "./Upstreams.ts"

/** The server side of PartnerUpstreams: each request gets the upstreams of its partner's key from the one map. */
export const layer = Layer.effect(
  PartnerUpstreams,
  Effect.map(
    Effect.service(Upstreams),
    (upstreams) =>
      PartnerUpstreams.of((httpEffect) =>
        Effect.flatMap(
          Effect.service(CurrentPartner),
          (partner) => reaching(keyOf(partner))(httpEffect).pipe(Effect.provideService(Upstreams, upstreams))
        )
      )
  )
)
