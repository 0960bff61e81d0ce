/**
 * The served API's queries (platform/QueryOnce.ts), decoded as HttpApiBuilder decodes them, without a server: the same
 * value or refusal as the contract's own schema, the value kept per distinct query (the same object again), and the
 * kept queries bounded per endpoint.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type { HttpApiEndpoint } from "effect/http-api"
import { PartnerApi } from "../../src/api/Api.ts"
import { servedApi } from "../../src/platform/QueryOnce.ts"

type Groups = Record<string, { readonly endpoints: Record<string, HttpApiEndpoint.Top> }>
const endpointOf = (api: unknown, group: string, endpoint: string) =>
  (api as { readonly groups: Groups }).groups[group].endpoints[endpoint]

/** The query's decoder as HttpApiBuilder builds it: single values as arrays, every failing field reported. */
const decoderOf = (endpoint: HttpApiEndpoint.Top) =>
  Schema.decodeUnknownEffect(Schema.toCodecArrayFromSingle(endpoint.query!), { errors: "all" })

const decode = (decoder: ReturnType<typeof decoderOf>, input: Record<string, string | Array<string>>) =>
  Effect.runSync(Effect.result(decoder(input) as Effect.Effect<unknown, Schema.SchemaError>))

const shown = (result: ReturnType<typeof decode>) =>
  result._tag === "Success" ? JSON.stringify(result.success) : String(result.failure)

const contract = decoderOf(endpointOf(PartnerApi, "catalog", "prematch"))
const served = decoderOf(endpointOf(servedApi(PartnerApi), "catalog", "prematch"))

describe("the served API", () => {
  it("is the contract's groups and endpoints, the same object for the same contract", () => {
    const api = servedApi(PartnerApi) as unknown as { readonly groups: Groups }
    assert.strictEqual(servedApi(PartnerApi), servedApi(PartnerApi))
    const groups = (PartnerApi as unknown as { readonly groups: Groups }).groups
    assert.deepStrictEqual(Object.keys(api.groups), Object.keys(groups))
    for (const [name, group] of Object.entries(groups)) {
      assert.deepStrictEqual(Object.keys(api.groups[name].endpoints), Object.keys(group.endpoints))
      for (const [id, endpoint] of Object.entries(group.endpoints)) {
        const copy = api.groups[name].endpoints[id]
        assert.strictEqual(copy.path, endpoint.path)
        assert.strictEqual(copy.method, endpoint.method)
        assert.strictEqual(copy.payload, endpoint.payload)
        assert.strictEqual(copy.success, endpoint.success)
        assert.strictEqual(copy.middlewares, endpoint.middlewares)
        assert.strictEqual(copy.query === undefined, endpoint.query === undefined)
      }
    }
  })

  it("decodes every query to what the contract's schema decodes it to, refusals worded the same", () => {
    const queries: ReadonlyArray<Record<string, string | Array<string>>> = [
      {},
      { sport_id: "1" },
      { sport_id: "1", page: "20" },
      { has_odds: "YES", date_from: "2026-11-30", date_to: "20261202", sort_by: "home_name", sort_direction: "desc" },
      { timezone: "asia/tokyo", date: "2026-11-30", per_page: "500" },
      { page: "x", per_page: ["1", "2"], has_odds: "maybe", date: "2026-02-30" },
      { sport_id: "0x10" },
      { since: "12", unknown: "kept out" }
    ]
    for (const query of queries) {
      const expected = shown(decode(contract, query))
      assert.strictEqual(shown(decode(served, query)), expected, JSON.stringify(query))
      assert.strictEqual(shown(decode(served, query)), expected, `${JSON.stringify(query)}, again`)
    }
  })

  it("keeps a query's value: the same query again is the same object, not decoded anew", () => {
    const first = decode(served, { sport_id: "1", page: "3" })
    const second = decode(served, { sport_id: "1", page: "3" })
    assert.isTrue(first._tag === "Success" && second._tag === "Success")
    if (first._tag === "Success" && second._tag === "Success") assert.strictEqual(second.success, first.success)
    const fresh = decode(contract, { sport_id: "1", page: "3" })
    if (first._tag === "Success" && fresh._tag === "Success") assert.notStrictEqual(fresh.success, first.success)
  })

  it("keeps at most 256 queries per endpoint, the least recently read first out", () => {
    const query = { search: "the first" }
    const first = decode(served, query)
    for (let i = 0; i < 256; i++) decode(served, { search: `another ${i}` })
    const again = decode(served, query)
    assert.isTrue(first._tag === "Success" && again._tag === "Success")
    if (first._tag === "Success" && again._tag === "Success") {
      assert.notStrictEqual(again.success, first.success)
      assert.deepStrictEqual(again.success, first.success)
    }
  })
})
