import { Context, Duration, Effect, Layer } from "effect"
import { environments } from "../../domain/Environment.ts"
import {
  alertBody,
  stuckAmount,
  stuckBet,
  type StuckItem,
  type StuckKind,
  stuckKinds,
  stuckNotification,
  stuckRound
} from "../../domain/Stuck.ts"
import { unreadableCallCurrentFor, unreadableCallKey } from "../../domain/UnreadableCalls.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { Partners } from "../../partners/Partners.ts"
import { AppConfig, publicBaseUrl } from "../../platform/AppConfig.ts"
import { recordStuckItems } from "../../platform/Metrics.ts"
import { CallbacksConfig } from "../CallbacksConfig.ts"
import { OutboxRepo } from "../outbox/OutboxRepo.ts"
import { recoveryInterval } from "../WalletRecovery.ts"
import { WalletRepo } from "../WalletRepo.ts"
import { OperationsConfig } from "./OperationsConfig.ts"
import { alertTimeout, OperatorAlerts } from "./OperatorAlerts.ts"
import { type StuckAlert, StuckAlertRepo } from "./StuckAlertRepo.ts"
import { UnreadableCallRepo } from "./UnreadableCallRepo.ts"

/** What is stuck now, up to a limit of each kind; `truncated`: the kinds that had more. */
export interface CurrentStuck {
  readonly items: ReadonlyArray<StuckItem>
  readonly truncated: ReadonlyArray<StuckKind>
}

/** The console's view: what is stuck now, each with its alert's record (none before the fleet's check saw it). */
export interface StuckView {
  readonly items: ReadonlyArray<{ readonly item: StuckItem; readonly alert: StuckAlert | undefined }>
  readonly truncated: ReadonlyArray<StuckKind>
  /** Items the fleet noticed that are no longer stuck (within a day), newest first. */
  readonly resolved: ReadonlyArray<StuckAlert>
}

/** How many of each kind are read at a time: the check, the metric and the console see at most this many. */
export const stuckLimit = 1000
/** Attempts of an operator alert before it is given up (backoff exp(attempt) seconds: about 10 hours in all). */
export const maxAlertAttempts = 10

/**
 * What the wallet could not finish on its own: rounds open longer than WALLET_STUCK_ROUND_AFTER, bets still
 * pending past WALLET_PENDING_TIMEOUT and the recovery pass after it, notifications whose attempts ran out, aggregators'
 * calls whose amount was finer than the player's currency (until resent readable, for at most 7 days). Read
 * live (the console, the metric); `check`, run once per fleet on a schedule, records each new item (the first
 * sighting, fleet-wide, is the row's insert) and sends its operator alert once.
 */
export class StuckItems extends Context.Service<StuckItems, {
  /** Whether operator alerts are sent (OPERATOR_ALERT_URL is set). */
  readonly alertsEnabled: boolean
  current(limit: number): Effect.Effect<CurrentStuck>
  readonly view: Effect.Effect<StuckView>
  /** One pass of the fleet's check: records what is stuck, resolves what no longer is, sends the alerts due. */
  readonly check: Effect.Effect<void>
  /** Brings `wallet_stuck_items` up to date (the scrapes run it). */
  readonly refreshGauges: Effect.Effect<void>
}>()("partner-api/wallet/StuckItems") {
  static readonly layer = Layer.effect(
    StuckItems,
    Effect.gen(function*() {
      const wallet = yield* WalletRepo
      const outbox = yield* OutboxRepo
      const players = yield* PartnerPlayers
      const partners = yield* Partners
      const repo = yield* StuckAlertRepo
      const unreadable = yield* UnreadableCallRepo
      const alerts = yield* OperatorAlerts
      const config = yield* OperationsConfig
      const callbacks = yield* CallbacksConfig
      const consoleUrl = `${publicBaseUrl(yield* AppConfig)}/admin/stuck`
      // A bet pending this long was due for recovery a pass ago: recovery should have settled it and did not.
      const stuckBetAfter = Duration.sum(callbacks.pendingTimeout, recoveryInterval(callbacks.pendingTimeout))

      const current = Effect.fn("StuckItems.current")(function*(limit: number) {
        const [rounds, bets, notifications, received] = yield* Effect.all([
          wallet.openRounds(config.stuckRoundAfter, limit),
          wallet.stalePendingBets(stuckBetAfter, limit),
          outbox.exhausted(limit),
          unreadable.receivedWithin(unreadableCallCurrentFor, limit)
        ], { concurrency: 4 })
        // An unreadable call is settled once the ledger holds a transaction of its id (the aggregator resent it).
        const resent = new Set((yield* wallet.existingTxnIds(received)).map(unreadableCallKey))
        const amounts = received.filter((call) => !resent.has(unreadableCallKey(call)))
        const ids = new Set([
          ...rounds.map((open) => open.round.playerId),
          ...bets.map((bet) => bet.playerId),
          ...notifications.map((n) => n.playerId),
          ...amounts.map((call) => call.playerId)
        ])
        const owners = new Map(
          (yield* players.findByIds([...ids])).map((player) => [player.id, player.externalPlayerId])
        )
        const player = (id: number) => owners.get(id) ?? null
        const items = [
          ...rounds.map((open) => stuckRound(open.round, open.openSince, player(open.round.playerId))),
          ...bets.map((bet) => stuckBet(bet, player(bet.playerId))),
          ...notifications.map((notification) => stuckNotification(notification, player(notification.playerId))),
          ...amounts.map((call) => stuckAmount(call, player(call.playerId)))
        ]
        const counted: Record<StuckKind, number> = {
          round: rounds.length,
          bet: bets.length,
          notification: notifications.length,
          // Counted as read: a kind cut at the limit says nothing of the rest, settled or not.
          amount: received.length
        }
        return { items, truncated: stuckKinds.filter((kind) => counted[kind] >= limit) }
      })

      const slugs = Effect.map(partners.list, (all) => new Map(all.map((partner) => [partner.id, partner.slug])))

      const itemOf = (alert: StuckAlert): StuckItem => ({
        kind: alert.kind,
        ref: alert.ref,
        partnerId: alert.partnerId,
        environment: alert.environment,
        subject: alert.subject,
        transactionId: null,
        externalPlayerId: alert.externalPlayerId,
        since: alert.since,
        detail: alert.detail
      })

      /** Sends the alerts due, each claimed first so that no other instance sends it meanwhile. */
      const deliverDue = Effect.gen(function*() {
        const due = yield* repo.claimDue(20, Duration.times(alertTimeout, 2))
        if (due.length === 0) return
        const names = yield* slugs
        yield* Effect.forEach(due, (alert) => {
          const body = alertBody({
            id: alert.id,
            item: itemOf(alert),
            partner: names.get(alert.partnerId) ?? `partner-${alert.partnerId}`,
            firstSeenAt: alert.firstSeenAt,
            consoleUrl
          })
          const attempt = alert.alertAttempts + 1
          return alerts.send(`stuck_${alert.id}`, body).pipe(
            Effect.matchEffect({
              onSuccess: () => repo.markSent(alert.id),
              onFailure: (failed) =>
                Effect.andThen(
                  Effect.logWarning("An operator alert could not be delivered").pipe(
                    Effect.annotateLogs({ alert_id: `stuck_${alert.id}`, attempt, detail: failed.message })
                  ),
                  repo.markFailed(
                    alert.id,
                    failed.message,
                    attempt >= maxAlertAttempts ? null : Duration.seconds(Math.exp(Math.min(attempt, 10)))
                  )
                )
            })
          )
        }, { concurrency: 4, discard: true })
      })

      const check = Effect.gen(function*() {
        const { items, truncated } = yield* current(stuckLimit)
        const noticed = yield* repo.record(items, alerts.enabled)
        for (const item of noticed) {
          yield* Effect.logWarning(`Stuck: a ${item.kind} needs an operator`).pipe(
            Effect.annotateLogs({
              kind: item.kind,
              subject: item.subject,
              partner_id: item.partnerId,
              environment: item.environment
            })
          )
        }
        // A kind read in full says what is no longer stuck; one cut at the limit says nothing of the rest.
        for (const kind of stuckKinds) {
          if (!truncated.includes(kind)) {
            yield* repo.resolveUnseen(kind, items.filter((item) => item.kind === kind).map((item) => item.ref))
          }
        }
        if (alerts.enabled) yield* deliverDue
      }).pipe(Effect.withSpan("StuckItems.check"))

      const view = Effect.gen(function*() {
        const [now, recorded] = yield* Effect.all([current(200), repo.recent(Duration.days(1), 500)], {
          concurrency: 2
        })
        const byItem = new Map(recorded.map((alert) => [`${alert.kind}:${alert.ref}`, alert]))
        return {
          items: now.items.map((item) => ({ item, alert: byItem.get(`${item.kind}:${item.ref}`) })),
          truncated: now.truncated,
          resolved: recorded.filter((alert) => alert.resolvedAt !== null)
        }
      }).pipe(Effect.withSpan("StuckItems.view"))

      const refreshGauges = Effect.gen(function*() {
        const { items } = yield* current(stuckLimit)
        for (const kind of stuckKinds) {
          for (const environment of environments) {
            yield* recordStuckItems(
              kind,
              environment,
              items.filter((item) => item.kind === kind && item.environment === environment).length
            )
          }
        }
      }).pipe(Effect.withSpan("StuckItems.refreshGauges"))

      return StuckItems.of({ alertsEnabled: alerts.enabled, current, view, check, refreshGauges })
    })
  )
}
