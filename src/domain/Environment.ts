import { Schema } from "effect"

/**
 * A partner's two environments. `live` reaches the real upstreams (the casino aggregator, the sports
 * provider and its quota) and moves real money through the partner's live wallet; `test` reaches only
 * the embedded sandboxes and the partner's test wallet. The data of the two never mixes.
 */
export const Environment = Schema.Literals(["live", "test"]).annotate({
  description: "Which of the partner's environments the token belongs to: `live` or `test`"
})
export type Environment = typeof Environment.Type

export const environments: ReadonlyArray<Environment> = ["live", "test"]

/** What a token issued for an environment starts with, so a person reading it knows which it is. */
export const tokenPrefix = (environment: Environment): string => `pak_${environment}_`
