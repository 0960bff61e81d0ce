import { Duration, Option, Predicate, Schema } from "effect"
import * as BetsApi from "./BetsApi.ts"

/**
 * How a BetsAPI-style answer is read before it is mapped (BetsApi.ts): its
 * envelope (found, not found, nothing, refused, of the wrong shape) and how
 * long it stays fresh. The provider caches what this reads.
 */

const seconds = Duration.seconds
const minutes = Duration.minutes

const timeStatusOf = (raw: unknown): number | undefined => {
  const first = (raw as { results?: ReadonlyArray<{ time_status?: unknown }> })?.results?.[0]
  return first === undefined ? undefined : Number(first.time_status)
}

const hasInPlayOdds = (raw: unknown) =>
  JSON.stringify((raw as { results?: { odds?: unknown } })?.results?.odds ?? {}).includes("\"ss\":\"")

/**
 * How long an answer stays fresh: seconds for what moves during a game,
 * minutes for lists and line-ups, a day for a final result. A "not found"
 * is remembered briefly, so scans of unknown ids do not drain the quota.
 */
export const timeToLive = (path: string, raw: unknown): Duration.Duration => {
  if ((raw as { success?: unknown })?.success === 0 || (raw as { success?: unknown })?.success === "0") {
    return seconds(30)
  }
  switch (path) {
    case BetsApi.paths.leagues:
      return minutes(30)
    case BetsApi.paths.upcoming:
      return minutes(2)
    case BetsApi.paths.inplay:
      return seconds(10)
    case BetsApi.paths.ended:
      return minutes(5)
    case BetsApi.paths.view: {
      const status = timeStatusOf(raw)
      return status === 1 ? seconds(5) : status === 3 ? Duration.hours(1) : seconds(60)
    }
    case BetsApi.paths.odds:
      return hasInPlayOdds(raw) ? seconds(5) : seconds(60)
    case BetsApi.paths.lineup:
      return minutes(10)
    case BetsApi.paths.statsTrend:
      return seconds(15)
    case BetsApi.paths.result:
      return timeStatusOf(raw) === 3 ? Duration.hours(24) : seconds(30)
    default:
      return seconds(30)
  }
}

/** What one upstream call answered, decoded once, when it arrived. */
export type Content<A> =
  | { readonly _tag: "Found"; readonly answer: A }
  /** The provider's NOT_FOUND. */
  | { readonly _tag: "NotFound" }
  /** Success with nothing in it: how BetsAPI answers an event detail it does not know (or has nothing of yet). */
  | { readonly _tag: "Nothing" }
  | { readonly _tag: "Rejected"; readonly code: string | undefined }
  | { readonly _tag: "Invalid" }

/** What a read hands on: the refusals and the wrong shapes have become errors. */
export type Usable<A> = Exclude<Content<A>, { readonly _tag: "Rejected" | "Invalid" }>

const notFoundCodes = new Set(["NOT_FOUND"])

const hasNothing = (raw: unknown) => {
  const results = Predicate.hasProperty(raw, "results") ? raw.results : undefined
  return results === undefined || results === null || (typeof results === "object" && Object.keys(results).length === 0)
}

/** Decodes an answer: its envelope, then (success with something in it) the path's own shape. */
export const contentOf = <A>(schema: Schema.Codec<A, unknown>, nothingIsUnknown: boolean, raw: unknown): Content<A> => {
  const envelope = Schema.decodeUnknownOption(BetsApi.Answer)(raw)
  if (Option.isNone(envelope)) return { _tag: "Invalid" }
  if (envelope.value.success !== 1) {
    return notFoundCodes.has(envelope.value.error ?? "")
      ? { _tag: "NotFound" }
      : { _tag: "Rejected", code: envelope.value.error ?? undefined }
  }
  if (nothingIsUnknown && hasNothing(raw)) return { _tag: "Nothing" }
  const answer = Schema.decodeUnknownOption(schema)(raw)
  return Option.isSome(answer) ? { _tag: "Found", answer: answer.value } : { _tag: "Invalid" }
}
