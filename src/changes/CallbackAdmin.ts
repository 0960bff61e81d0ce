import { Clock, Context, Effect, Layer, Option } from "effect"
import { type CallbackView, testBody } from "../domain/Callbacks.ts"
import type { Actor } from "../domain/Admin.ts"
import type { Environment } from "../domain/Environment.ts"
import type { Partner } from "../domain/Partner.ts"
import { AuditRepo } from "../identity/AuditRepo.ts"
import { CallbackTargets } from "../partners/CallbackTargets.ts"
import { PartnerNotFound } from "../partners/PartnerInputs.ts"
import { type CallbackNotFound, type CallbackNotReplayable, CallbackOutbox } from "../wallet/outbox/CallbackOutbox.ts"
import { PartnerCallbacks, probe, type Trial } from "../wallet/outbox/PartnerCallbacks.ts"
import { maskedUrlOrNull } from "../domain/MaskedUrl.ts"

/*
 * A partner's callbacks as an operator (console, CLI) or the partner's own users (portal) act on them: one delivered
 * again (in the same transaction as its audit row), a test one sent (audited, never in the outbox).
 */

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
            yield* audit.record(actor, {
              action: "partner.test-callback",
              target: `partner:${partner.slug}`,
              after: {
                environment,
                url: maskedUrlOrNull(target.callbackUrl),
                status: trial.answer?.status ?? null,
                failure: trial.failure
              }
            })
            return trial
          }
        ),
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
