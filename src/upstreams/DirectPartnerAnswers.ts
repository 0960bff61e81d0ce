import { Context, Effect, Option, Schema } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { TooManyRequests } from "../api/Errors.ts"
import { errorAnswer } from "../api/Respond.ts"
import { CurrentPartner } from "../api/Security.ts"
import { DirectAdmission } from "../partners/DirectAdmission.ts"
import { DirectAnswers } from "../platform/DirectAnswers.ts"
import { upstreamsAdders } from "./PartnerUpstreams.ts"
import type { Upstreams, UpstreamServices } from "./Upstreams.ts"

/** What a direct answer reads of its endpoint in the contract (an HttpApiEndpoint of PartnerApi). */
export interface ContractEndpoint {
  /** The route pattern, the API's prefix included; one parameter at most. */
  readonly path: string
  readonly error: ReadonlySet<Schema.Top>
  readonly params: Schema.Top | undefined
}

/**
 * One endpoint of the partner API answered at the edge (platform/DirectAnswers) when DirectAdmission admits the
 * request: its path parameter decoded by the contract's schema (one it refuses goes the whole way, to be refused
 * there), the upstreams of the token's environment added as PartnerUpstreams adds them, then `handler`, the very
 * effect the endpoint's HttpApi handler runs, its failures answered from the endpoint's error schemas as HttpApi
 * answers them. A request it does not admit goes on to the router, PartnerAuth and the contract.
 */
export const directPartnerAnswer = <E>(options: {
  readonly endpoint: ContractEndpoint
  /** The API's GET route patterns: a path another of them matches too is left to the router. */
  readonly others: ReadonlyArray<string>
  readonly handler: (
    param: string | undefined
  ) => Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    E,
    CurrentPartner | UpstreamServices | Upstreams | HttpServerRequest.HttpServerRequest
  >
}) =>
  DirectAnswers.serve(Effect.gen(function*() {
    const { endpoint } = options
    const name = /\/:([^/]+)/.exec(endpoint.path)?.[1]
    const decodeParams = endpoint.params === undefined
      ? undefined
      : Schema.decodeUnknownOption(endpoint.params as Schema.Codec<Record<string, string>, unknown>)
    const paramOf = (param: string | undefined): Option.Option<string | undefined> => {
      if (decodeParams === undefined || name === undefined || param === undefined) return Option.some(param)
      return Option.map(decodeParams({ [name]: param }), (params) => params[name])
    }
    const admission = yield* DirectAdmission
    const adderOf = yield* upstreamsAdders
    // PartnerAuth's 429, as the contract writes it.
    const refused = errorAnswer([TooManyRequests])
    const failed = errorAnswer(endpoint.error)
    return {
      route: endpoint.path,
      others: options.others,
      answer: (request, raw) => {
        const param = paramOf(raw)
        if (Option.isNone(param)) return Effect.undefined
        return Effect.matchEffect(admission.admit(request), {
          onFailure: (limited) => refused(new TooManyRequests({ message: limited.message })),
          onSuccess: (partner) =>
            partner === undefined ? Effect.undefined : options.handler(param.value).pipe(
              Effect.updateContext((context: Context.Context<HttpServerRequest.HttpServerRequest>) =>
                Context.add(adderOf(partner.environment)(context), CurrentPartner, partner)
              ),
              Effect.catch(failed)
            )
        })
      }
    }
  }))
