import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"

/**
 * An answer the edge step gives itself, ahead of the router and HttpApi, to a request for one exact path with no
 * query: the hottest reads (`/status`, an event's odds), answered by the very handler effect their endpoint runs, so
 * the contract still writes the bytes. `undefined` is "not one I answer alone": anything unusual (no token, two
 * schemes, a token this instance does not know yet) goes on to the router and the contract, which answer it in full.
 */
export interface DirectAnswer {
  /** The contract's route pattern (`/api/partner/v1/sports/events/:eventId/odds`): the access line's and metrics'. */
  readonly route: string
  readonly answer: (
    request: HttpServerRequest.HttpServerRequest,
    param: string | undefined
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse | undefined>
}

interface Registered extends DirectAnswer {
  readonly prefix: string
  readonly suffix: string
}

/**
 * The direct answers, GET only, registered by the areas as routes are (a layer adds one) and read by the edge step
 * on every request: an exact path, or one path parameter as the last-but-one segment or the last
 * (`prefix:param` + `suffix`).
 */
export class DirectAnswers extends Context.Service<DirectAnswers, {
  add(answer: DirectAnswer): void
  /** The answer for a GET of `path` (no query), and its path parameter. */
  find(path: string): readonly [DirectAnswer, string | undefined] | undefined
}>()("partner-api/platform/DirectAnswers") {
  static readonly layer = Layer.sync(DirectAnswers, () => {
    const exact = new Map<string, DirectAnswer>()
    const withParam: Array<Registered> = []
    return DirectAnswers.of({
      add: (answer) => {
        const at = answer.route.indexOf("/:")
        if (at === -1) {
          exact.set(answer.route, answer)
          return
        }
        const end = answer.route.indexOf("/", at + 1)
        withParam.push({
          ...answer,
          prefix: answer.route.slice(0, at + 1),
          suffix: end === -1 ? "" : answer.route.slice(end)
        })
      },
      find: (path) => {
        const found = exact.get(path)
        if (found !== undefined) return [found, undefined]
        for (const registered of withParam) {
          if (!path.startsWith(registered.prefix) || !path.endsWith(registered.suffix)) continue
          const param = path.slice(registered.prefix.length, path.length - registered.suffix.length)
          // One segment, not empty, as the router reads it (no percent-decoding to do: then it is not direct).
          if (param === "" || param.includes("/") || param.includes("%")) continue
          return [registered, param]
        }
        return undefined
      }
    })
  })

  /** A layer that adds `answer`. */
  static readonly serve = <E, R>(answer: Effect.Effect<DirectAnswer, E, R>) =>
    Layer.effectDiscard(Effect.flatMap(answer, (built) => DirectAnswers.useSync((answers) => answers.add(built))))
}
