import { Cache, Context, Effect, Exit, Layer, Option } from "effect"
import type { Environment } from "../domain/Environment.ts"
import type { CallbackTarget } from "../domain/Partner.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { PartnerRepo } from "./PartnerRepo.ts"

/**
 * Where each partner's wallet callbacks go and what signs them, as the
 * wallet needs it on every call: cached in memory for AUTH_CACHE_TTL and
 * forgotten at once when any process changes a partner (NOTIFY).
 */
export class CallbackTargets extends Context.Service<CallbackTargets, {
  /** The partner's target in an environment: its callback URL and secrets there. */
  get(partnerId: number, environment: Environment): Effect.Effect<Option.Option<CallbackTarget>>
}>()("partner-api/partners/CallbackTargets") {
  static readonly layer = Layer.effect(
    CallbackTargets,
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const config = yield* AppConfig
      // Keyed by `partnerId:environment`: the two environments are two targets.
      const targets = yield* Cache.makeWith((key: string) => {
        const [partnerId, environment] = key.split(":")
        return repo.findCallbackTarget(Number(partnerId), environment as Environment)
      }, {
        capacity: 10_000,
        timeToLive: (exit) => Exit.isSuccess(exit) ? config.authCacheTtlMillis : 0
      })
      yield* repo.onChange(Cache.invalidateAll(targets))
      return CallbackTargets.of({ get: (partnerId, environment) => Cache.get(targets, `${partnerId}:${environment}`) })
    })
  ).pipe(Layer.provide(PartnerRepo.layerSql))

  /** Fixed targets, for tests of the wallet's rules. */
  static readonly layerMemory = (targets: ReadonlyArray<CallbackTarget>) =>
    Layer.succeed(CallbackTargets, CallbackTargets.of({
      get: (partnerId, environment) =>
        Effect.succeed(
          Option.fromNullishOr(targets.find((target) => target.partnerId === partnerId && target.environment === environment))
        )
    }))
}
