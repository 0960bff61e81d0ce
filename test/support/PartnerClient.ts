import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { makePartnerClient } from "../../src/client/PartnerClient.ts"

/**
 * The partner API's typed client (src/client, as a partner would use it),
 * over real HTTP to the test's server (whose HttpClient already points at
 * it), authenticating with `token` as a Bearer token.
 */
export const partnerClient = (token: string, scheme: "bearer" | "partnerKey" = "bearer") =>
  makePartnerClient({ token, scheme })

type Client = Effect.Success<ReturnType<typeof partnerClient>>

/** The query of the catalog's feeds (prematch and live), as the typed client takes it. */
export type FeedQuery = Parameters<Client["catalog"]["prematch"]>[0]["query"]

/**
 * The error a typed call fails with, which must be one of the contract's error
 * answers, `type` (`NotFound`, `ValidationFailed`, ...: the class says the status).
 */
export const failsWith = <T>(type: new(...args: never) => T) => <A, E, R>(call: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(call), (error: unknown): T => {
    if (error instanceof type) return error
    return assert.fail(`expected a ${type.name}, got ${String(error)}`)
  })
