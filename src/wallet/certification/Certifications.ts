import { Cause, Context, Duration, Effect, Exit, FiberSet, Layer, Option, Schema } from "effect"
import {
  caseKeys,
  type CaseResult,
  type Certification,
  newCertificationId,
  outcome,
  type StartedVia
} from "../../domain/Certification.ts"
import { CallbackTargets } from "../../partners/CallbackTargets.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { CallbacksConfig } from "../CallbacksConfig.ts"
import { PartnerCallbacks } from "../outbox/PartnerCallbacks.ts"
import { certify } from "./CertificationCases.ts"
import type { RunSetting } from "./CertificationCalls.ts"
import {
  type CertificationInProgress,
  CertificationRepo,
  type CertificationRequirement,
  type CertificationSummary
} from "./CertificationRepo.ts"

/** The test player named for a run is not one of the partner's test players. */
export class UnknownTestPlayer extends Schema.TaggedError<UnknownTestPlayer>()("UnknownTestPlayer", {
  externalPlayerId: Schema.String
}) {
  override get message() {
    return `"${this.externalPlayerId}" is not one of this partner's test players: launch a game for it once with the test ` +
      "token, then certify with it."
  }
}

/** Who starts a run, as the run records it. */
export interface Starter {
  readonly name: string
  readonly via: StartedVia
}

/**
 * Wallet certification: runs of the cases (CertificationCases) against a partner's test wallet, stored as they go
 * (CertificationRepo). A run started by the partner API or the console runs in the background, in a fiber of this
 * instance scoped to the service (FiberSet): a run is a short session someone is watching, so it is not a durable
 * job; if its instance stops, it is closed as interrupted (at once on a stop, after a while on a crash) and is
 * started again by a person, not retried from the start behind their back. The CLI runs one in its own process,
 * to its end. Nothing here touches the ledger: the run speaks to the wallet through PartnerCallbacks only.
 */
export class Certifications extends Context.Service<Certifications, {
  /** Starts a run in the background; answers it as stored, with no case yet. */
  start(
    partnerId: number,
    externalPlayerId: string,
    starter: Starter
  ): Effect.Effect<Certification, UnknownTestPlayer | CertificationInProgress>
  /** Runs to the end in the calling fiber, telling `onCase` of each case as it finishes. */
  run(
    partnerId: number,
    externalPlayerId: string,
    starter: Starter,
    onCase?: (result: CaseResult) => Effect.Effect<void>
  ): Effect.Effect<Certification, UnknownTestPlayer | CertificationInProgress>
  /** A run with its cases so far: the partner's own (`partnerId`), or any (the operator's). */
  find(id: string, partnerId?: number): Effect.Effect<Option.Option<Certification>>
  list(partnerId: number, limit: number): Effect.Effect<ReadonlyArray<CertificationSummary>>
  requirement(partnerId: number): Effect.Effect<CertificationRequirement>
}>()("partner-api/wallet/certification/Certifications") {
  static readonly layerNoDeps = Layer.effect(
    Certifications,
    Effect.gen(function*() {
      const repo = yield* CertificationRepo
      const callbacks = yield* PartnerCallbacks
      const targets = yield* CallbackTargets
      const players = yield* PartnerPlayers
      const { timeout } = yield* CallbacksConfig
      const running = yield* FiberSet.make<void>()

      /** The run recorded as started: the partner's test target and its test player. */
      const prepare = Effect.fn("Certifications.prepare")(
        function*(partnerId: number, externalPlayerId: string, starter: Starter) {
          const target = Option.getOrThrowWith(
            yield* targets.get(partnerId, "test"),
            () => new Error(`no partner ${partnerId}`)
          )
          const player = yield* players.find(partnerId, "test", externalPlayerId)
          if (Option.isNone(player)) {
            return yield* new UnknownTestPlayer({ externalPlayerId })
          }
          const setting: RunSetting = {
            id: newCertificationId(),
            target,
            party: { partnerSlug: target.partnerSlug, externalPlayerId, userCode: player.value.internalUserId },
            timeoutMillis: Duration.toMillis(timeout)
          }
          const started = yield* repo.insert({
            id: setting.id,
            partnerId,
            externalPlayerId,
            // A test environment without a URL of its own has the sandbox partner wallet's (CallbackTargets).
            callbackUrl: target.callbackUrl ?? "",
            startedBy: starter.name,
            startedVia: starter.via,
            timeoutMillis: setting.timeoutMillis
          })
          return { setting, started: { ...started, cases: [] } satisfies Certification }
        }
      )

      /** The cases, each stored as it finishes, then the run's end; an interrupted run is closed as such. */
      const execute = (setting: RunSetting, onCase: (result: CaseResult) => Effect.Effect<void>) =>
        certify(
          setting,
          callbacks,
          (result) => Effect.andThen(repo.recordCase(setting.id, caseKeys.indexOf(result.key), result), onCase(result))
        ).pipe(
          Effect.flatMap((results) => {
            const { status, summary } = outcome(results)
            return repo.finish(setting.id, status, summary)
          }),
          Effect.onExit((exit) => {
            if (Exit.isSuccess(exit)) return Effect.void
            const stopped = Cause.hasInterruptsOnly(exit.cause)
            return Effect.andThen(
              stopped ? Effect.void : Effect.logError("A wallet certification run failed", exit.cause),
              repo.finish(
                setting.id,
                "interrupted",
                stopped
                  ? "The run was interrupted before it finished (the service was stopping): start it again."
                  : "The run stopped on an internal error (see the service's log): start it again."
              )
            )
          }),
          Effect.withSpan("Certifications.execute", { attributes: { certification: setting.id } })
        )

      const found = (id: string) =>
        Effect.flatMap(
          repo.find(id),
          Option.match({
            onNone: () => Effect.die(`the run ${id} just recorded is gone`),
            onSome: Effect.succeed
          })
        )

      return Certifications.of({
        start: Effect.fn("Certifications.start")(
          function*(partnerId: number, externalPlayerId: string, starter: Starter) {
            const { setting, started } = yield* prepare(partnerId, externalPlayerId, starter)
            yield* FiberSet.run(running, execute(setting, () => Effect.void))
            return started
          }
        ),
        run: Effect.fn("Certifications.run")(
          function*(
            partnerId: number,
            externalPlayerId: string,
            starter: Starter,
            onCase?: (result: CaseResult) => Effect.Effect<void>
          ) {
            const { setting } = yield* prepare(partnerId, externalPlayerId, starter)
            yield* execute(setting, onCase ?? (() => Effect.void))
            return yield* found(setting.id)
          }
        ),
        find: repo.find,
        list: repo.list,
        requirement: repo.requirement
      })
    })
  )

  static readonly layer = this.layerNoDeps.pipe(Layer.provideMerge(CertificationRepo.layerSql))
}
