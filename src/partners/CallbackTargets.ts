import { Cache, Context, Effect, Exit, Layer, Option } from "effect"
import type { Environment } from "../domain/Environment.ts"
import type { CallbackTarget } from "../domain/Partner.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { PartnerRepo } from "./PartnerRepo.ts"

/**
 * Where each partner's wallet callbacks go and what signs them, as the
 * wallet needs it on every call: cached in memory for AUTH_CACHE_TTL and
 * forgotten at once when any process changes a partner (NOTIFY). A test
 * environment without a callback URL is answered by the sandbox partner
 * wallet of this service, so a test integration works before the partner
 * builds its own wallet; a test callback never goes to a live URL.
 */
/**
 * Where a test environment's callbacks go when the partner set no test callback URL: the layer graph
 * names the sandbox partner wallet of this service (the product does not know the sandbox).
 */
export class DefaultTestCallbackUrl extends Context.Service<DefaultTestCallbackUrl, string>()(
  "partner-api/partners/DefaultTestCallbackUrl"
) {}

export class CallbackTargets extends Context.Service<CallbackTargets, {
  /** The partner's target in an environment: its callback URL and secrets there. */
  get(partnerId: number, environment: Environment): Effect.Effect<Option.Option<CallbackTarget>>
  /** The same, read now rather than from the cache (a test callback right after the partner changed its URL). */
  fresh(partnerId: number, environment: Environment): Effect.Effect<Option.Option<CallbackTarget>>
}>()("partner-api/partners/CallbackTargets") {
  static readonly layer = Layer.effect(
    CallbackTargets,
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const config = yield* AppConfig
      const defaultTestUrl = yield* DefaultTestCallbackUrl
      // Every partner has a test environment (migration 0013); without a URL of its own it is the default's.
      const testTarget = (partnerId: number) =>
        Effect.map(
          repo.findCallbackTarget(partnerId, "test"),
          Option.map((test): CallbackTarget =>
            test.callbackUrl === null ? { ...test, callbackUrl: defaultTestUrl } : test
          )
        )
      const fresh = (partnerId: number, environment: Environment) =>
        environment === "test" ? testTarget(partnerId) : repo.findCallbackTarget(partnerId, environment)
      // Keyed by `partnerId:environment`: the two environments are two targets.
      const targets = yield* Cache.makeWith((key: string) => {
        const [partnerId, environment] = key.split(":")
        return fresh(Number(partnerId), environment as Environment)
      }, {
        capacity: 10_000,
        timeToLive: (exit) => Exit.isSuccess(exit) ? config.authCacheTtlMillis : 0
      })
      yield* repo.onChange(Cache.invalidateAll(targets))
      return CallbackTargets.of({
        get: (partnerId, environment) => Cache.get(targets, `${partnerId}:${environment}`),
        fresh
      })
    })
  ).pipe(Layer.provide(PartnerRepo.layerSql))

  /** Fixed targets, for tests of the wallet's rules. */
  static readonly layerMemory = (targets: ReadonlyArray<CallbackTarget>) => {
    const get = (partnerId: number, environment: Environment) =>
      Effect.succeed(
        Option.fromNullishOr(
          targets.find((target) => target.partnerId === partnerId && target.environment === environment)
        )
      )
    return Layer.succeed(CallbackTargets, CallbackTargets.of({ get, fresh: get }))
  }
}
