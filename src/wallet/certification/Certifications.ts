import { Partners } from "../../partners/Partners.ts"
import { Cause, Context, Duration, Effect, Exit, FiberSet, Layer, Option, Schema } from "effect"
import {
  type CaseResult,
  type Certification,
  newCertificationId,
  outcome,
  type StartedVia
} from "../../domain/Certification.ts"
import { caseKeys } from "../../domain/CertificationCaseTexts.ts"
import type { Currency } from "../../domain/Currency.ts"
import { CallbackTargets } from "../../partners/CallbackTargets.ts"
import { ExemptCallbackUrls } from "../../partners/CallbackUrlPolicy.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { CurrencyConfig } from "../../platform/CurrencyConfig.ts"
import { CallbacksConfig } from "../CallbacksConfig.ts"
import { PartnerCallbacks } from "../outbox/PartnerCallbacks.ts"
import { notSentReason } from "./CaseSteps.ts"
import { certify } from "./CertificationCases.ts"
import type { RunSetting } from "./CertificationCalls.ts"
import {
  type CertificationInProgress,
  CertificationRepo,
  type CertificationRequirement,
  type CertificationRunsLimited,
  type CertificationSummary
} from "./CertificationRepo.ts"

/** The test player named for a run is not one of the partner's test players in the run's currency. */
export class UnknownTestPlayer extends Schema.TaggedError<UnknownTestPlayer>()("UnknownTestPlayer", {
  externalPlayerId: Schema.String,
  currency: Schema.String
}) {
  override get message() {
    return `"${this.externalPlayerId}" is not one of this partner's test players in ${this.currency}, the currency ` +
      `the run plays in: launch a game for it once with the test token in ${this.currency}, then certify with it.`
  }
}

/** A URL's path, for telling the service's own addresses apart whatever host or query names them. */
const pathOf = (url: string) => URL.canParse(url) ? new URL(url).pathname : url

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
 *
 * A run plays in one currency, with the test player's row of that currency: the one its caller names, or else the
 * partner's default (`currencyOf`, the one place that chooses it).
 */
export class Certifications extends Context.Service<Certifications, {
  /**
   * Starts a run in the background, in `currency` (the partner's default unless the caller names one); answers it as
   * stored, with no case yet.
   */
  start(
    partnerId: number,
    externalPlayerId: string,
    starter: Starter,
    currency?: Currency
  ): Effect.Effect<Certification, UnknownTestPlayer | CertificationInProgress | CertificationRunsLimited>
  /** Runs to the end in the calling fiber, telling `onCase` of each case as it finishes; `currency` as for `start`. */
  run(
    partnerId: number,
    externalPlayerId: string,
    starter: Starter,
    onCase?: (result: CaseResult) => Effect.Effect<void>,
    currency?: Currency
  ): Effect.Effect<Certification, UnknownTestPlayer | CertificationInProgress | CertificationRunsLimited>
  /** The currency a partner's runs play in when their caller names none: the partner's default currency. */
  currencyOf(partnerId: number): Effect.Effect<Currency>
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
      const { currencies, defaultCurrency } = yield* CurrencyConfig
      const partners = yield* Partners
      const running = yield* FiberSet.make<void>()
      const servicesOwn = new Set([...(yield* ExemptCallbackUrls)].map(pathOf))

      /**
       * The partner's default currency, which its test player plays in: its own, or the deployment's DEFAULT_CURRENCY
       * (also when its own is no longer enabled: the run then says which currency it played in).
       */
      const currencyOf = (partnerId: number): Effect.Effect<Currency> =>
        Effect.map(
          partners.findById(partnerId),
          (partner) =>
            Option.match(Option.flatMapNullishOr(partner, (p) => p.defaultCurrency), {
              onNone: () => defaultCurrency,
              onSome: (code) => currencies.find(code) ?? defaultCurrency
            })
        )

      /** The run recorded as started: the partner's test target and its test player's row in the run's currency. */
      const prepare = Effect.fn("Certifications.prepare")(
        function*(partnerId: number, externalPlayerId: string, starter: Starter, named: Currency | undefined) {
          const currency = named ?? (yield* currencyOf(partnerId))
          // Read now, not from the cache: a run often follows the partner setting its test callback URL.
          const target = Option.getOrThrowWith(
            yield* targets.fresh(partnerId, "test"),
            () => new Error(`no partner ${partnerId}`)
          )
          const own = (yield* partners.environmentsOf([{ id: partnerId }]))
            .find((settings) => settings.environment === "test")
          // Only the partner's own address certifies its wallet: never the sandbox partner wallet the test environment
          // falls back to, nor another address of the service's own (those exempt from the URL policy), known by its
          // path whatever host or query reaches it, so that no alias of the service certifies its own wallet.
          const partnerWallet = own?.callbackUrl != null && own.callbackUrl === target.callbackUrl &&
            !servicesOwn.has(pathOf(own.callbackUrl))
          const player = yield* players.find(partnerId, "test", externalPlayerId, currency.code)
          if (Option.isNone(player)) {
            return yield* new UnknownTestPlayer({ externalPlayerId, currency: currency.code })
          }
          const setting: RunSetting = {
            id: newCertificationId(),
            target,
            party: {
              partnerSlug: target.partnerSlug,
              externalPlayerId,
              userCode: player.value.internalUserId,
              currency
            },
            timeoutMillis: Duration.toMillis(timeout)
          }
          const started = yield* repo.insert({
            id: setting.id,
            partnerId,
            externalPlayerId,
            currency: currency.code,
            // A test environment without a URL of its own has the sandbox partner wallet's (CallbackTargets).
            callbackUrl: target.callbackUrl ?? "",
            partnerWallet,
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
          Effect.flatMap(({ notSent, results }) => {
            if (notSent !== undefined) return repo.finish(setting.id, "not_run", notSentReason(notSent))
            const { status, summary } = outcome(results)
            return repo.finish(setting.id, status, summary)
          }),
          Effect.onExit((exit) => {
            if (Exit.isSuccess(exit)) return Effect.void
            // A stop: recovery (CertificationRecovery) puts the test player's balance back on a later start.
            if (Cause.hasInterruptsOnly(exit.cause)) {
              return repo.finish(
                setting.id,
                "interrupted",
                "The run was interrupted before it finished (the service was stopping): start it again."
              )
            }
            return Effect.andThen(
              Effect.logError("A wallet certification run failed", exit.cause),
              repo.finish(
                setting.id,
                "not_run",
                "Not run: the run stopped on an error of the service's own (see its log). This says nothing of the " +
                  "wallet: start it again."
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
          function*(partnerId: number, externalPlayerId: string, starter: Starter, currency?: Currency) {
            const { setting, started } = yield* prepare(partnerId, externalPlayerId, starter, currency)
            yield* FiberSet.run(running, execute(setting, () => Effect.void))
            return started
          }
        ),
        run: Effect.fn("Certifications.run")(
          function*(
            partnerId: number,
            externalPlayerId: string,
            starter: Starter,
            onCase?: (result: CaseResult) => Effect.Effect<void>,
            currency?: Currency
          ) {
            const { setting } = yield* prepare(partnerId, externalPlayerId, starter, currency)
            yield* execute(setting, onCase ?? (() => Effect.void))
            return yield* found(setting.id)
          }
        ),
        currencyOf,
        find: repo.find,
        list: repo.list,
        requirement: repo.requirement
      })
    })
  )

  static readonly layer = this.layerNoDeps.pipe(Layer.provideMerge(CertificationRepo.layerSql))
}
