import { Schema } from "effect"

/**
 * The casino aggregators, by the name CASINO_GATEWAY gives each. An aggregator numbers its own things (providers,
 * games, rounds, transactions): its ids are unique within it only, so every key over them names it too.
 */
export const Aggregator = Schema.Literals(["playfiver", "sandbox", "hub88"])
export type Aggregator = typeof Aggregator.Type

export const isAggregator = Schema.is(Aggregator)

/**
 * Whether an aggregator's transaction ids are one space for every kind of transaction: Hub88's `transaction_uuid` is
 * processed once whether it names a bet, a win or a rollback (../shared/spec/hub88.md, section 6), so the ledger
 * holds it once across kinds. PlayFiver's and the sandbox's ids are per kind, as their calls have always been kept.
 */
export const idsAcrossKinds = (aggregator: Aggregator): boolean => aggregator === "hub88"
