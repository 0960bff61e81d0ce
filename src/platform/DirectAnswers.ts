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
  /**
   * The API's other route patterns of the method: a path one of them also matches (`/sports/events/live/odds`, which
   * the router gives to `/sports/events/live/:eventId`) is declined, and the router decides.
   */
  readonly others?: ReadonlyArray<string> | undefined
  readonly answer: (
    request: HttpServerRequest.HttpServerRequest,
    param: string | undefined
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse | undefined, never, HttpServerRequest.HttpServerRequest>
}

interface Registered extends DirectAnswer {
  readonly prefix: string
  readonly suffix: string
  /**
   * The parameter's values another pattern matches too, with this one's path around them: the literal segment each
   * clashing pattern has where this one has its parameter (`live`, for `/sports/events/live/:eventId`).
   */
  readonly reserved: ReadonlySet<string>
}

const segmentsOf = (pattern: string) =>
  pattern.split("/").map((segment) => segment.startsWith(":") ? undefined : segment)

/** Whether two patterns match some path in common: as many segments, each pair equal or one a parameter. */
const overlap = (a: ReadonlyArray<string | undefined>, b: ReadonlyArray<string | undefined>) =>
  a.length === b.length && a.every((segment, i) => segment === undefined || b[i] === undefined || segment === b[i])

/**
 * The values of `own`'s one parameter for which `other` matches the same path: where both match a path, `other` has
 * a literal where `own` has its parameter (the router then prefers `other`, static first), or a parameter there too
 * (a duplicate route, which the router refuses to build).
 */
const reservedBy = (
  own: ReadonlyArray<string | undefined>,
  others: ReadonlyArray<ReadonlyArray<string | undefined>>
) => {
  const at = own.indexOf(undefined)
  return new Set(others.filter((other) => overlap(own, other)).flatMap((other) => other[at] ?? []))
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
        const own = segmentsOf(answer.route)
        withParam.push({
          ...answer,
          prefix: answer.route.slice(0, at + 1),
          suffix: end === -1 ? "" : answer.route.slice(end),
          reserved: reservedBy(own, (answer.others ?? []).filter((other) => other !== answer.route).map(segmentsOf))
        })
      },
      find: (path) => {
        const found = exact.get(path)
        if (found !== undefined) return [found, undefined]
        for (const registered of withParam) {
          if (!path.startsWith(registered.prefix) || !path.endsWith(registered.suffix)) continue
          const param = path.slice(registered.prefix.length, path.length - registered.suffix.length)
          // One segment, not empty, as the router reads it (no percent-decoding to do: then it is not direct).
          if (param === "" || param.includes("/") || param.includes("%") || registered.reserved.has(param)) continue
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
