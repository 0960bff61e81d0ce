import { Duration, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Conflict, invalid, notFound } from "../../api/identity/Errors.ts"
import { PortalApi } from "../../api/portal/PortalApi.ts"
import { type Environment, environments } from "../../domain/Environment.ts"
import { blankIsNull, type IssuedToken } from "../../domain/Partner.ts"
import { Partners } from "../../partners/Partners.ts"
import { CallbackOutbox } from "../../wallet/outbox/CallbackOutbox.ts"
import { CallbackAdmin } from "../../changes/CallbackAdmin.ts"
import { PartnerAdmin } from "../../changes/PartnerAdmin.ts"
import { partnerOfSession, portalActor } from "./Common.ts"
import { maskedUrlOrNull } from "../../domain/MaskedUrl.ts"
import { testCallbackDetail } from "../../api/Callbacks.ts"

/** The latest end of these rolled tokens; null: none is in an overlap. */
const latestEnd = (tokens: ReadonlyArray<IssuedToken>) =>
  tokens.reduce<Date | null>(
    (latest, token) =>
      token.expiresAt !== null && (latest === null || token.expiresAt > latest) ? token.expiresAt : latest,
    null
  )

/** `keep_old_hours` as a duration; absent or null: the old one stops now. */
const keptFor = (hours: number | null | undefined) =>
  hours === undefined || hours === null ? undefined : Duration.hours(hours)

/** The contract's "tokens" group: the session's partner's tokens, rolled with or without an overlap. */
export const PortalTokensHandlers = HttpApiBuilder.group(
  PortalApi,
  "tokens",
  Effect.fn(function*(handlers) {
    const partners = yield* Partners
    const changes = yield* PartnerAdmin
    const tokensOf = Effect.fnUntraced(function*(environment?: Environment) {
      const all = yield* Effect.flatMap(partnerOfSession, partners.tokensOf)
      return all.filter((token) => environment === undefined || token.environment === environment)
    })
    return handlers
      .handle("list", () =>
        // One read of the partner's tokens, split by environment.
        Effect.map(Effect.flatMap(partnerOfSession, partners.tokensOf), (all) => ({
          success: true as const,
          environments: environments.map((environment) => ({
            environment,
            tokens: all.filter((token) => token.environment === environment)
          }))
        })))
      .handle(
        "roll",
        Effect.fn("PortalHandlers.rollToken")(function*({ params, payload }) {
          const partner = yield* partnerOfSession
          const keepOld = keptFor(payload.keep_old_hours)
          const { token } = yield* changes.rotateToken(yield* portalActor, partner.slug, params.environment, keepOld)
            .pipe(
              Effect.catchTags({
                LiveTokenWithheld: (withheld) => Effect.fail(new Conflict({ message: withheld.message })),
                PartnerNotFound: Effect.die
              })
            )
          const tokens = yield* tokensOf(params.environment)
          return {
            success: true as const,
            environment: params.environment,
            token,
            oldValidUntil: keepOld === undefined ? null : latestEnd(tokens),
            tokens
          }
        })
      )
      .handle(
        "endOverlap",
        Effect.fn("PortalHandlers.endTokenOverlap")(function*({ params }) {
          const partner = yield* partnerOfSession
          yield* changes.endTokenOverlap(yield* portalActor, partner.slug, params.environment).pipe(Effect.orDie)
          return { success: true as const, tokens: yield* tokensOf(params.environment) }
        })
      )
  })
)

/** An environment's settings as the portal shows them: the callback URL's credentials and query values masked. */
const shown = <S extends { readonly callbackUrl: string | null }>(settings: S): S => ({
  ...settings,
  callbackUrl: maskedUrlOrNull(settings.callbackUrl)
})

/** The contract's "webhooks" group: the session's partner's callback URLs, test sends, secrets and delivery log. */
export const PortalWebhooksHandlers = HttpApiBuilder.group(
  PortalApi,
  "webhooks",
  Effect.fn(function*(handlers) {
    const partners = yield* Partners
    const changes = yield* PartnerAdmin
    const callbacks = yield* CallbackAdmin
    const outbox = yield* CallbackOutbox
    const webhook = Effect.fnUntraced(function*(environment: Environment) {
      const settings = yield* Effect.flatMap(partnerOfSession, (partner) => partners.environmentsOf([partner]))
      return shown(settings.find((each) => each.environment === environment)!)
    })
    return handlers
      .handle("list", () =>
        // One read of the partner's environments, in the contract's order.
        Effect.map(Effect.flatMap(partnerOfSession, (partner) => partners.environmentsOf([partner])), (settings) => ({
          success: true as const,
          environments: environments.map((environment) =>
            shown(settings.find((each) => each.environment === environment)!)
          )
        })))
      .handle(
        "setUrl",
        Effect.fn("PortalHandlers.setCallbackUrl")(function*({ params, payload }) {
          const partner = yield* partnerOfSession
          const url = blankIsNull(payload.callback_url) ?? null
          yield* changes.update(
            yield* portalActor,
            partner.slug,
            params.environment === "live" ? { callbackUrl: url } : { testCallbackUrl: url }
          ).pipe(
            Effect.catchTags({
              InvalidPartnerInput: (error) => Effect.fail(invalid("callback_url", error.message)),
              PartnerNotFound: Effect.die
            })
          )
          return { success: true as const, webhook: yield* webhook(params.environment) }
        })
      )
      .handle(
        "test",
        Effect.fn("PortalHandlers.testCallback")(function*({ params }) {
          const trial = yield* callbacks.sendTest(yield* portalActor, yield* partnerOfSession, params.environment).pipe(
            Effect.orDie
          )
          return { success: true as const, ...trial }
        })
      )
      .handle(
        "rotateSecret",
        Effect.fn("PortalHandlers.rotateWebhookSecret")(function*({ params, payload }) {
          const partner = yield* partnerOfSession
          const overlap = keptFor(payload.keep_old_hours) ?? Duration.zero
          const { webhookSecret } = yield* changes.rotateWebhookSecret(
            yield* portalActor,
            partner.slug,
            params.environment,
            overlap
          ).pipe(Effect.orDie)
          return { success: true as const, webhook_secret: webhookSecret, webhook: yield* webhook(params.environment) }
        })
      )
      .handle("deliveries", ({ params, query }) =>
        Effect.flatMap(partnerOfSession, (partner) => {
          const filter = { status: query.status, limit: query.limit ?? 100 }
          // The outbox's callbacks and the test ones (kept in the audit trail), merged newest first: the log shows
          // every callback the partner was sent, as the portal's guide says.
          return Effect.all([
            outbox.list({ partnerId: partner.id, environment: params.environment, ...filter }),
            callbacks.testsSent(partner, params.environment, filter)
          ], { concurrency: 2 }).pipe(
            Effect.map(([sent, tests]) => ({
              success: true as const,
              callbacks: [...sent, ...tests.map(testCallbackDetail)]
                .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
                .slice(0, filter.limit)
            }))
          )
        }))
      .handle(
        "redeliver",
        ({ params }) =>
          Effect.flatMap(
            Effect.all([portalActor, partnerOfSession]),
            ([actor, partner]) => callbacks.redeliver(actor, params.id, partner.id)
          ).pipe(
            Effect.catchTags({
              CallbackNotFound: (error) => Effect.fail(notFound(error)),
              CallbackNotReplayable: (error) => Effect.fail(new Conflict({ message: error.message }))
            }),
            Effect.map((callback) => ({ success: true as const, callback }))
          )
      )
  })
)
