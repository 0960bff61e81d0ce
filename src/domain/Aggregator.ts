import { Schema } from "effect"

/**
 * The casino aggregators, by the name CASINO_GATEWAY gives each. An aggregator numbers its own things (providers,
 * games, rounds, transactions): its ids are unique within it only, so every key over them names it too.
 */
export const Aggregator = Schema.Literals(["playfiver", "sandbox", "hub88"])
export type Aggregator = typeof Aggregator.Type

export const isAggregator = Schema.is(Aggregator)
