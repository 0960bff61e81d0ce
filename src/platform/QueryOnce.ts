import { Effect, Exit, Schema, SchemaParser } from "effect"
import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { makeRecentMap } from "./RecentMap.ts"

/** Distinct query texts kept per endpoint; past it the least recently read goes. */
const queriesPerEndpoint = 256

/** A longer query is decoded on every request rather than kept (a key is the query's JSON). */
const longestKept = 1024

/**
 * An endpoint's query schema, decoded once per distinct query: the query values (as the router parsed them, the
 * same `?sport_id=1&page=2` on every poll) are the key, their JSON, and the decoded value is kept in a RecentMap.
 * What a query decodes to depends on its values alone (no clock, no service), so the value kept is the one a fresh
 * decoding would give; only successes are kept, so a refusal is decoded, and worded, as before. The type parameter
 * is the contract's schema: HttpApiBuilder's codec derivation (single values as arrays) reaches it, and `decode` is
 * the derived codec's decoder with the endpoint's parse options.
 */
const decodedOnce = <S extends Schema.Top>(query: S): S =>
  Schema.declareConstructor<S["Type"], S["Encoded"]>()([query], ([codec]) => {
    const decode = SchemaParser.decodeUnknownEffect(codec)
    const kept = makeRecentMap<string, Exit.Exit<S["Type"], never>>(queriesPerEndpoint)
    return (input, _ast, options) => {
      const key = JSON.stringify(input)
      const known = kept.get(key, 0)
      if (known !== undefined) return known
      const decoded = decode(input, options)
      if (key.length <= longestKept && Exit.isExit(decoded) && Exit.isSuccess(decoded)) {
        kept.set(key, decoded as Exit.Exit<S["Type"], never>, Infinity)
      }
      return decoded as Effect.Effect<S["Type"], never>
    }
  }) as unknown as S

const withQueryDecodedOnce = (endpoint: HttpApiEndpoint.Top): HttpApiEndpoint.Top => {
  if (endpoint.query === undefined) return endpoint
  // HttpApiEndpoint has no setter for its query: the same endpoint (prototype, fields), its query schema replaced.
  const copy = Object.setPrototypeOf(function HttpApiEndpoint() {}, Object.getPrototypeOf(endpoint))
  return Object.assign(copy, endpoint, { query: decodedOnce(endpoint.query) })
}

const served = new WeakMap<object, unknown>()

/**
 * The API a server builds its handlers from: the contract itself (its groups, paths, schemas, middleware), each
 * endpoint's query decoded once per distinct query (decodedOnce) instead of on every request. Only the serving side
 * takes it: the OpenAPI documents, the typed client and the tests read the contract, which stays the one source.
 * The same object for the same contract, so every group's handlers (HttpApiBuilder.group) share its caches.
 */
export const servedApi = <A extends HttpApi.Constraint>(api: A): A => {
  const known = served.get(api)
  if (known !== undefined) return known as A
  const contract = api as unknown as HttpApi.Top
  const groups = Object.values(contract.groups).map((group) => {
    const endpoints = Object.values(group.endpoints) as Array<HttpApiEndpoint.Top>
    return endpoints.length === 0
      ? group
      : group.add(...(endpoints.map(withQueryDecodedOnce) as [HttpApiEndpoint.Top, ...Array<HttpApiEndpoint.Top>]))
  })
  const result = groups.length === 0 ? api : (contract.add(...(groups as [HttpApiGroup.Top])) as unknown as A)
  served.set(api, result)
  return result
}
