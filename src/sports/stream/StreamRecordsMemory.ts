import { Clock, Effect, Layer } from "effect"
import type { EventRecord, MarketRecord } from "../../domain/SportsChanges.ts"
import { chunks, chunkSize, fingerprintOf, StreamRecords } from "./StreamRecords.ts"

/**
 * The records over memory (layerMemory): the same upserts keyed as the SQL's tables are (an event by
 * provider and id, a market by provider, event, phase and key), facts compared as the SQL compares their digests, stale
 * markets in the SQL's order a batch at a time, pruning by the Clock.
 */
const makeMemory = Effect.sync(() => {
  const events = new Map<string, Map<string, EventRecord>>()
  const markets = new Map<string, Map<string, MarketRecord>>()
  const of = <A>(tables: Map<string, Map<string, A>>, provider: string) => {
    if (!tables.has(provider)) tables.set(provider, new Map())
    return tables.get(provider)!
  }
  const marketId = (market: MarketRecord) => JSON.stringify([market.eventId, market.inPlay, market.key])
  /** One statement cannot write a row twice (ON CONFLICT DO UPDATE refuses it). */
  const once = <A>(records: ReadonlyArray<A>, key: (record: A) => string) => {
    if (new Set(records.map(key)).size !== records.length) {
      throw new Error("ON CONFLICT DO UPDATE command cannot affect row a second time")
    }
  }
  const open = (event: EventRecord) => event.active && (event.status === "scheduled" || event.status === "live")
  const compare = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0
  const day = 86_400_000

  return StreamRecords.of({
    providerKnown: (provider) => Effect.sync(() => (events.get(provider)?.size ?? 0) > 0),
    eventRecords: (provider, observed, openOfSports) =>
      Effect.sync(() => {
        const held = of(events, provider)
        const moved = new Set<string>()
        const previous = new Map<string, EventRecord>()
        for (const event of observed) {
          const known = held.get(event.eventId)
          if (known !== undefined && fingerprintOf(known) === fingerprintOf(event)) continue
          moved.add(event.eventId)
          if (known !== undefined) previous.set(event.eventId, known)
        }
        const listed = new Set(observed.map((event) => event.eventId))
        for (const known of held.values()) {
          if (open(known) && openOfSports.includes(known.sportId) && !listed.has(known.eventId)) {
            previous.set(known.eventId, known)
          }
        }
        return { moved, previous }
      }),
    saveEvents: (provider, records) =>
      Effect.sync(() => {
        for (const chunk of chunks(records)) once(chunk, (record) => record.eventId)
        const held = of(events, provider)
        for (const record of records) held.set(record.eventId, { ...record })
      }),
    places: (provider, eventIds) =>
      Effect.sync(() => {
        const held = of(events, provider)
        return new Map(eventIds.flatMap((id) => {
          const known = held.get(id)
          return known === undefined ? [] : [[id, { sportId: known.sportId, leagueId: known.leagueId }] as const]
        }))
      }),
    marketRecords: (provider, eventIds) =>
      Effect.sync(() => [...of(markets, provider).values()].filter((market) => eventIds.includes(market.eventId))),
    saveMarkets: (provider, records) =>
      Effect.sync(() => {
        for (const chunk of chunks(records)) once(chunk, marketId)
        const held = of(markets, provider)
        for (const record of records) {
          held.set(marketId(record), { ...record, odds: record.odds.map((odd) => ({ ...odd })) })
        }
      }),
    staleMarkets: (answeredBefore) =>
      Effect.sync(() =>
        [...markets].flatMap(([provider, held]) =>
          [...held.values()].flatMap((market) => {
            const event = events.get(provider)?.get(market.eventId)
            return event === undefined || market.suspended || market.answeredAt >= answeredBefore
              ? []
              : [{ provider, market, sportId: event.sportId, leagueId: event.leagueId }]
          })
        ).sort((a, b) =>
          compare(a.provider, b.provider) || compare(a.market.eventId, b.market.eventId) ||
          Number(a.market.inPlay) - Number(b.market.inPlay) ||
          compare(a.market.key, b.market.key)
        ).slice(0, chunkSize)
      ),
    prune: Effect.map(Clock.currentTimeMillis, (now) => {
      for (const held of markets.values()) {
        for (const [id, market] of held) if (market.answeredAt < now - day) held.delete(id)
      }
      for (const held of events.values()) {
        for (const [id, event] of held) if (!open(event) && event.answeredAt < now - 3 * day) held.delete(id)
      }
    })
  })
})

/** The same records over memory, for tests without PostgreSQL (see makeMemory). */
export const layerMemory: Layer.Layer<StreamRecords> = Layer.effect(StreamRecords, makeMemory)
