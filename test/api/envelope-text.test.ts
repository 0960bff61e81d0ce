/**
 * The answers written once per value (envelopeWriter) are byte for byte what
 * HttpApiBuilder writes for the same endpoint: its success envelope encoded
 * by the endpoint's schema, then JSON.stringify. Pure: no server, no database.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { statusAnswer, StatusData } from "../../src/api/Account.ts"
import { FiltersData, PrematchEntryCodec, PrematchFeedData } from "../../src/api/CatalogWire.ts"
import { Envelope, envelopeWriter, ok } from "../../src/api/Envelope.ts"
import { synced } from "../../src/api/CatalogEdge.ts"
import { OddsData } from "../../src/api/SportsWire.ts"
import { PartnerAccess } from "../../src/domain/Partner.ts"
import { passRtp } from "../../src/domain/RtpPolicy.ts"
import type { FeedEntry } from "../../src/domain/SportsCatalog.ts"
import type { Synced } from "../../src/domain/SportsCatalogSync.ts"

const partner = new PartnerAccess({
  id: 12,
  name: "Acme \"Bets\" ç",
  slug: "acme-bets",
  status: "active",
  commissionPercent: 12.5,
  callbackUrl: null,
  rateLimitPerMinute: null,
  rtpPolicy: passRtp,
  defaultCurrency: null,
  currencies: null,
  createdAt: new Date("2026-01-02T03:04:05.000Z"),
  updatedAt: new Date("2026-01-02T03:04:05.000Z"),
  environment: "test"
})

/** What HttpApiBuilder sends for `data` on an endpoint whose success is Envelope(dataSchema). */
const asTheBuilderWrites = <S extends Schema.Codec<unknown, unknown>>(dataSchema: S, data: S["Type"]) =>
  JSON.stringify(Schema.encodeSync(Envelope("Answer", dataSchema))(ok(partner, data) as never))

/** The answer's body as text, its `content-length` checked against its bytes (the envelope's length is summed). */
const body = (response: { readonly body: unknown; readonly headers: Record<string, string | undefined> }) => {
  const content = response.body as { readonly _tag: string; readonly body: Uint8Array; readonly contentType: string }
  assert.strictEqual(content._tag, "Uint8Array")
  assert.strictEqual(response.headers["content-length"], String(content.body.length))
  return new TextDecoder().decode(content.body)
}

const entry = (n: number): FeedEntry => ({
  id: `be${n}`,
  sportId: 1,
  country: n % 2 === 0 ? "Spain" : null,
  leagueId: "bl7",
  leagueName: "Premier League 7",
  homeName: `Real ${n}`,
  awayName: "Union \u00e9 \"x\"",
  startsAt: new Date(Date.UTC(2026, 10, 28, 19, n)),
  hasOdds: n % 3 === 0,
  lastUpdate: new Date(Date.UTC(2026, 10, 27, 8, 30, 0, n)),
  status: n % 4 === 0 ? "postponed" : "scheduled",
  reason: n % 4 === 0 ? { code: "PST", text: "Match \"Postponed\"" } : null
})

describe("envelopeWriter", () => {
  it.effect("writes /status as the endpoint's schema does", () =>
    Effect.gen(function*() {
      const data = yield* statusAnswer(partner, {
        aggregatorConfigured: true,
        aggregators: () => Effect.succeed([]),
        sportsProvider: { name: "sandbox", configured: false }
      })
      const write = envelopeWriter(StatusData, (_: PartnerAccess) => Effect.succeed(data))
      const response = yield* write(partner, partner)
      assert.strictEqual(body(response), asTheBuilderWrites(StatusData, data))
      assert.strictEqual(response.status, 200)
      // As the builder encodes JSON: `application/json`, no charset.
      assert.strictEqual(response.headers["content-type"], "application/json")
    }))

  it.effect("writes a feed page (its entries encoded to the wire, then the envelope) as the endpoint's schema does", () =>
    Effect.gen(function*() {
      const page: Synced<FeedEntry> = {
        results: [entry(1), { ...entry(2), removed: true }, entry(3)],
        page: 2,
        perPage: 3,
        total: 1234,
        next: 1048576
      }
      const toWire = synced(PrematchEntryCodec)
      const write = envelopeWriter(PrematchFeedData, toWire)
      const expected = asTheBuilderWrites(PrematchFeedData, yield* toWire(page))
      assert.strictEqual(body(yield* write(partner, page)), expected)
      assert.strictEqual(body(yield* write(partner, page)), expected, "and again, from what it remembered")
    }))

  it.effect("writes the dynamic filters and the odds, each value with its own source or event id", () =>
    Effect.gen(function*() {
      const facets = {
        sports: ["Soccer"],
        countries: ["Spain", "England"],
        leagues: ["A 2", "A 10"],
        teams: ["Ünion", "\u2028x"]
      }
      const writeFilters = envelopeWriter(
        FiltersData,
        (value: typeof facets, source) => Effect.succeed({ source, ...value })
      )
      assert.strictEqual(
        body(yield* writeFilters(partner, facets, "prematch")),
        asTheBuilderWrites(FiltersData, { source: "prematch", ...facets })
      )
      assert.strictEqual(
        body(yield* writeFilters(partner, facets, "live")),
        asTheBuilderWrites(FiltersData, { source: "live", ...facets }),
        "the same value for another source is written anew"
      )
      const markets = [{
        key: "1_1",
        name: "Full Time Result",
        odds: [{ label: "1", value: 1.5 }, { label: "X", value: 3.25 }]
      }]
      const writeOdds = envelopeWriter(
        OddsData,
        (value: typeof markets, eventId) => Effect.succeed({ event_id: eventId, markets: value })
      )
      for (const eventId of ["10150123", "other"]) {
        assert.strictEqual(
          body(yield* writeOdds(partner, markets, eventId)),
          asTheBuilderWrites(OddsData, { event_id: eventId, markets })
        )
      }
    }))
})
