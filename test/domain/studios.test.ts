import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { gatewayList } from "../../src/casino/CasinoConfig.ts"
import { isIsoCountry } from "../../src/domain/Countries.ts"
import {
  studioAliasConflict,
  studioAliasKeys,
  studioAliasLimit,
  studioKey,
  studioServings,
  unservedProviders
} from "../../src/domain/Studios.ts"

const listings = [
  { id: 1, aggregator: "playfiver", name: "PG Soft" },
  { id: 2, aggregator: "playfiver", name: "Pragmatic Play" },
  { id: 3, aggregator: "hub88", name: "PGSOFT" },
  { id: 4, aggregator: "hub88", name: "Crazy Tooth Studio" },
  { id: 5, aggregator: "hub88", name: "Pragmatic" }
]
const none = new Map<string, string>()

describe("studios across aggregators", () => {
  it("a studio's key ignores case, spaces, punctuation and accents", () => {
    assert.strictEqual(studioKey("PG Soft"), "pgsoft")
    assert.strictEqual(studioKey("pg-soft"), "pgsoft")
    assert.strictEqual(studioKey("PGSOFT"), "pgsoft")
    assert.strictEqual(studioKey("Élk Studios!"), "elkstudios")
  })

  it("a studio both offer is served by the first in CASINO_GATEWAY; the other's provider is unserved", () => {
    const rules = { order: ["playfiver", "hub88"], aliases: none, owners: none }
    assert.deepStrictEqual(unservedProviders(listings, rules), [3])
    const pg = studioServings(listings, rules).find((serving) => serving.studio === "pgsoft")!
    assert.deepStrictEqual([pg.offeredBy, pg.servedBy, pg.chosen], [["playfiver", "hub88"], "playfiver", false])
    assert.deepStrictEqual(unservedProviders(listings, { ...rules, order: ["hub88", "playfiver"] }), [1])
  })

  it("the operator's choice serves it, when that aggregator offers it; aliases join what names miss", () => {
    const rules = { order: ["playfiver", "hub88"], aliases: none, owners: new Map([["pgsoft", "hub88"]]) }
    assert.deepStrictEqual(unservedProviders(listings, rules), [1])
    assert.deepStrictEqual(
      unservedProviders(listings, { ...rules, owners: new Map([["crazytoothstudio", "playfiver"]]) }),
      [3],
      "a choice of an aggregator that does not offer the studio is not followed"
    )
    const aliased = { ...rules, owners: none, aliases: new Map([["pragmatic", "pragmaticplay"]]) }
    assert.deepStrictEqual(unservedProviders(listings, aliased), [3, 5])
  })

  it("aggregators not configured are neither served nor left out", () => {
    assert.deepStrictEqual(unservedProviders(listings, { order: ["playfiver"], aliases: none, owners: none }), [])
  })
})

describe("the operator's aliases", () => {
  const refusal = (result: ReturnType<typeof studioAliasKeys>) =>
    Result.match(result, { onSuccess: () => undefined, onFailure: (refused) => [refused.field, refused.message] })

  it("names as typed become keys; a name too long, without a letter or digit, or one studio with the other is refused", () => {
    assert.deepStrictEqual(Result.getOrThrow(studioAliasKeys("PG Soft Games", "PG-Soft")), {
      alias: "pgsoftgames",
      studio: "pgsoft"
    })
    assert.deepStrictEqual(refusal(studioAliasKeys("x".repeat(101), "PG Soft")), [
      "alias",
      "The alias is longer than 100 characters."
    ])
    assert.isUndefined(refusal(studioAliasKeys("x".repeat(100), "PG Soft")), "100 characters are allowed")
    assert.deepStrictEqual(refusal(studioAliasKeys("PG Soft", " -- ")), [
      "studio",
      "The studio \" -- \" has no letter or digit, so no studio key."
    ])
    assert.deepStrictEqual(refusal(studioAliasKeys("PG Soft", "pg-soft")), [
      "studio",
      "\"PG Soft\" and \"pg-soft\" are one studio already (pgsoft): an alias joins two keys."
    ])
  })

  it("no chains either way; a new alias beyond the limit is refused, changing a kept one is not", () => {
    const kept = new Map([["pgsoftgames", "pgsoft"]])
    assert.strictEqual(studioAliasConflict(kept, "pgsoft", "pocketgames")?.field, "alias")
    assert.strictEqual(studioAliasConflict(kept, "pocket", "pgsoftgames")?.field, "studio")
    assert.isUndefined(studioAliasConflict(kept, "pgsoftgames", "pocketgames"), "an alias may change its studio")
    assert.isUndefined(studioAliasConflict(kept, "pgs", "pgsoft"), "two aliases may name one studio")

    const full = new Map(Array.from({ length: studioAliasLimit }, (_, i) => [`alias${i}`, `studio${i}`]))
    assert.strictEqual(
      studioAliasConflict(full, "onemore", "pgsoft")?.message,
      "There are 500 aliases already, the most kept: remove one first."
    )
    assert.isUndefined(studioAliasConflict(full, "alias7", "pgsoft"))
  })
})

describe("CASINO_GATEWAY", () => {
  it("one name, or a comma-separated list of real aggregators, each once; sandbox alone", () => {
    assert.deepStrictEqual(Result.getOrThrow(gatewayList("playfiver")), ["playfiver"])
    assert.deepStrictEqual(Result.getOrThrow(gatewayList(" playfiver , HUB88 ")), ["playfiver", "hub88"])
    assert.deepStrictEqual(Result.getOrThrow(gatewayList("sandbox")), ["sandbox"])
    for (const bad of ["", "playfiver,playfiver", "sandbox,hub88", "playfiver,nope"]) {
      assert.isTrue(Result.isFailure(gatewayList(bad)), bad)
    }
  })
})

describe("launch country", () => {
  it("is an ISO 3166-1 alpha-2 code, upper-case", () => {
    assert.isTrue(isIsoCountry("BR"))
    assert.isTrue(isIsoCountry("PT"))
    for (const bad of ["XX", "ZZ", "EU", "br", "BRA", ""]) assert.isFalse(isIsoCountry(bad), bad)
  })
})
