import { Clock, Context, Effect, Layer, Option } from "effect"
import { type CallbackView, testBody, type TestCallbackView } from "../domain/Callbacks.ts"
import type { Actor, AuditEntry } from "../domain/Admin.ts"
import type { Environment } from "../domain/Environment.ts"
import type { Partner } from "../domain/Partner.ts"
import { AuditRepo } from "../identity/AuditRepo.ts"
import { CallbackTargets } from "../partners/CallbackTargets.ts"
import { PartnerNotFound } from "../partners/PartnerInputs.ts"
import { type CallbackNotFound, type CallbackNotReplayable, CallbackOutbox } from "../wallet/outbox/CallbackOutbox.ts"
import { PartnerCallbacks, probe, snippet, type Trial } from "../wallet/outbox/PartnerCallbacks.ts"
import { maskedUrlOrNull } from "../domain/MaskedUrl.ts"

/*
 * A partner's callbacks as an operator (console, CLI) or the partner's own users (portal) act on them: one delivered
 * again (in the same transaction as its audit row), a test one sent (audited, never in the outbox) and the test ones
 * sent, read back from the audit trail for the delivery log.
 */

const testAction = "partner.test-callback"

/** Why a test callback failed, as the outbox words a failed delivery: null when the partner answered 2xx. */
const lastErrorOf = (trial: Trial) =>
  trial.failure ?? (trial.answer === null || (trial.answer.status >= 200 && trial.answer.status < 300)
    ? null
    : `The partner answered HTTP ${trial.answer.status}: ${snippet(trial.answer.body ?? undefined)}`)

/** A test callback's audit row as the delivery log shows it (rows from before it kept the event id have none). */
const testCallbackOf = (partner: string, entry: AuditEntry): TestCallbackView => {
  const after = (entry.after ?? {}) as {
    readonly environment: "live" | "test"
    readonly status: number | null
    readonly failure: string | null
    readonly event_id?: string
    readonly body?: string
    readonly last_error?: string | null
  }
  const delivered = after.last_error !== undefined
    ? after.last_error === null
    : after.status !== null && after.status >= 200 && after.status < 300
  return {
    eventId: after.event_id ?? null,
    partner,
    environment: after.environment,
    kind: "test",
    status: delivered ? "delivered" : "failed",
    attempts: 1,
    lastError: after.last_error !== undefined
      ? after.last_error
      : after.failure ?? (delivered ? null : `The partner answered HTTP ${after.status}.`),
    createdAt: entry.at,
    deliveredAt: delivered ? entry.at : null,
    body: after.body ?? null
  }
}

export class CallbackAdmin extends Context.Service<CallbackAdmin, {
  /** Delivers a notification again; with `partnerId`, only one of that partner's (another's is not found). */
  redeliver(
    actor: Actor,
    callbackId: number,
    partnerId?: number
  ): Effect.Effect<CallbackView, CallbackNotFound | CallbackNotReplayable>
  /**
   * Sends a test callback to the partner's callback URL in the environment, signed as every callback is, and
   * answers the exact request and what the partner answered. Recorded in the audit trail, not in the outbox.
   */
  sendTest(
    actor: Actor,
    partner: Pick<Partner, "id" | "slug">,
    environment: Environment
  ): Effect.Effect<Trial, PartnerNotFound>
  /**
   * The test callbacks sent to the partner's environment, newest first, as the audit trail recorded them: the
   * delivery log lists them beside the outbox's callbacks, so it shows every callback the partner was sent.
   */
  testsSent(
    partner: Pick<Partner, "slug">,
    environment: Environment,
    filter: { readonly status?: "pending" | "delivered" | "failed" | undefined; readonly limit: number }
  ): Effect.Effect<ReadonlyArray<TestCallbackView>>
}>()("partner-api/changes/CallbackAdmin") {
  static readonly layer = Layer.effect(
    CallbackAdmin,
    Effect.gen(function*() {
      const outbox = yield* CallbackOutbox
      const audit = yield* AuditRepo
      const targets = yield* CallbackTargets
      const callbacks = yield* PartnerCallbacks
      return CallbackAdmin.of({
        sendTest: Effect.fn("CallbackAdmin.sendTest")(
          function*(actor: Actor, partner: Pick<Partner, "id" | "slug">, environment: Environment) {
            const target = yield* targets.fresh(partner.id, environment).pipe(
              Effect.flatMap(Option.match({
                onNone: () => Effect.fail(new PartnerNotFound({ slug: partner.slug })),
                onSome: Effect.succeed
              }))
            )
            const { body, eventId } = testBody(partner.slug, environment, new Date(yield* Clock.currentTimeMillis))
            const trial = yield* probe(callbacks, target, eventId, body)
            // The event id and body too (neither is a secret): the delivery log shows the send from this row.
            yield* audit.record(actor, {
              action: testAction,
              target: `partner:${partner.slug}`,
              after: {
                environment,
                url: maskedUrlOrNull(target.callbackUrl),
                status: trial.answer?.status ?? null,
                failure: trial.failure,
                event_id: eventId,
                delivery: lastErrorOf(trial) === null ? "delivered" : "failed",
                last_error: lastErrorOf(trial),
                body
              }
            })
            return trial
          }
        ),
        testsSent: (partner, environment, filter) =>
          // A test callback is never pending: it was answered, or it failed, when it was sent.
          filter.status === "pending" ? Effect.succeed([]) : audit.list({
            target: `partner:${partner.slug}`,
            action: testAction,
            // The status as the row names it (`delivery`): rows older than it are listed only unfiltered.
            afterHas: filter.status === undefined ? { environment } : { environment, delivery: filter.status },
            limit: filter.limit
          }).pipe(Effect.map((entries) => entries.map((entry) => testCallbackOf(partner.slug, entry)))),
        redeliver: Effect.fn("CallbackAdmin.redeliver")(
          function*(actor: Actor, callbackId: number, partnerId?: number) {
            return yield* audit.atomically(Effect.gen(function*() {
              const view = yield* outbox.retry(callbackId, partnerId)
              yield* audit.record(actor, {
                action: "callback.redeliver",
                target: `callback:${callbackId}`,
                after: {
                  event_id: view.eventId,
                  partner: view.partner,
                  kind: view.kind,
                  status: view.status,
                  attempts: view.attempts
                }
              })
              return view
            }))
          }
        )
      })
    })
  )
}
