import { Context, Effect, type Schema } from "effect"
import type { HttpServerResponse } from "effect/http"
import { TooManyRequests } from "../api/Errors.ts"
import { errorAnswer } from "../api/Respond.ts"
import { CurrentPartner } from "../api/Security.ts"
import { DirectAdmission } from "../partners/DirectAdmission.ts"
import { DirectAnswers } from "../platform/DirectAnswers.ts"
import { upstreamsAdders } from "./PartnerUpstreams.ts"
import type { Upstreams, UpstreamServices } from "./Upstreams.ts"

/**
 * One endpoint of the partner API answered at the edge (platform/DirectAnswers) when DirectAdmission admits the
 * request: the upstreams of its token's environment added as PartnerUpstreams adds them, then `handler`, the very
 * effect the endpoint's HttpApi handler runs, its failures answered from `errors` (the endpoint's own, as HttpApi
 * answers them). A request it does not admit goes on to the router, PartnerAuth and the contract.
 */
export const directPartnerAnswer = <E>(options: {
  /** The contract's route pattern: the path of its prefix and endpoint, one parameter at most. */
  readonly route: string
  readonly errors: Iterable<Schema.Top>
  readonly handler: (
    param: string | undefined
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, CurrentPartner | UpstreamServices | Upstreams>
}) =>
  DirectAnswers.serve(Effect.gen(function*() {
    const admission = yield* DirectAdmission
    const adderOf = yield* upstreamsAdders
    // PartnerAuth's 429, as the contract writes it.
    const refused = errorAnswer([TooManyRequests])
    const failed = errorAnswer(options.errors)
    return {
      route: options.route,
      answer: (request, param) =>
        Effect.matchEffect(admission.admit(request), {
          onFailure: (limited) => refused(new TooManyRequests({ message: limited.message })),
          onSuccess: (partner) =>
            partner === undefined ? Effect.undefined : options.handler(param).pipe(
              Effect.updateContext((context: Context.Context<never>) =>
                Context.add(adderOf(partner.environment)(context), CurrentPartner, partner)
              ),
              Effect.catch(failed)
            )
        })
    }
  }))
