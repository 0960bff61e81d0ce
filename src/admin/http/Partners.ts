import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../../api/admin/AdminApi.ts"
import { Conflict, ValidationFailed } from "../../api/admin/AdminErrors.ts"
import { blankIsNull, type Partner } from "../../domain/Partner.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { Partners } from "../../partners/Partners.ts"
import { PartnerAdmin } from "../../changes/PartnerAdmin.ts"
import { partnerViews, viewPartner } from "../PartnerView.ts"
import { currentActor, notFound } from "./Common.ts"

/** The contract's "partners" group (src/api/admin/AdminPartners.ts). */
const matches = (search: string) => (partner: Partner) =>
  partner.name.toLowerCase().includes(search) || partner.slug.includes(search)

export const AdminPartnersHandlers = HttpApiBuilder.group(
  AdminApi,
  "partners",
  Effect.fn(function*(handlers) {
    const partners = yield* Partners
    const players = yield* PartnerPlayers
    const changes = yield* PartnerAdmin
    const inputError = (error: { readonly message: string }) =>
      new ValidationFailed({ message: error.message, errors: { partner: [error.message] } })
    const partnerAnswer = (partner: Partner) =>
      Effect.map(viewPartner(partners, players, partner), (view) => ({ success: true as const, partner: view }))

    return handlers
      .handle("list", ({ query }) =>
        Effect.flatMap(
          partners.list,
          (all) => partnerViews(partners, players, all.filter(matches((query.search ?? "").trim().toLowerCase())))
        ).pipe(
          Effect.map((views) => ({ success: true as const, partners: views }))
        ))
      .handle(
        "show",
        ({ params }) => partners.show(params.slug).pipe(Effect.mapError(notFound), Effect.flatMap(partnerAnswer))
      )
      .handle(
        "create",
        Effect.fn("AdminHandlers.createPartner")(function*({ payload }) {
          const created = yield* changes.create(yield* currentActor, {
            name: payload.name.trim(),
            slug: payload.slug === undefined || payload.slug.trim() === "" ? undefined : payload.slug.trim(),
            commissionPercent: payload.commission_percent,
            callbackUrl: blankIsNull(payload.callback_url),
            testCallbackUrl: blankIsNull(payload.test_callback_url)
          }).pipe(Effect.catchTags({
            InvalidPartnerInput: (error) => Effect.fail(inputError(error)),
            SlugTaken: (error) => Effect.fail(new Conflict({ message: error.message }))
          }))
          return {
            success: true as const,
            partner: yield* viewPartner(partners, players, created.partner),
            token: created.token,
            webhook_secret: created.webhookSecret,
            test: { token: created.test.token, webhook_secret: created.test.webhookSecret }
          }
        })
      )
      .handle(
        "update",
        Effect.fn("AdminHandlers.updatePartner")(function*({ params, payload }) {
          const actor = yield* currentActor
          const { currencies, default_currency, player_mode, rtp_policy, ...settings } = payload
          // The player mode, the RTP policy and the currencies are audited changes of their own (the mode forgets
          // players' data); a request with only them records no empty partner.update.
          const partner = Object.values(settings).every((value) => value === undefined)
            ? yield* partners.show(params.slug).pipe(Effect.mapError(notFound))
            : yield* changes.update(actor, params.slug, {
              name: settings.name?.trim(),
              commissionPercent: settings.commission_percent,
              callbackUrl: blankIsNull(settings.callback_url),
              testCallbackUrl: blankIsNull(settings.test_callback_url),
              rateLimitPerMinute: settings.rate_limit_per_minute
            }).pipe(
              Effect.catchTags({
                InvalidPartnerInput: (error) => Effect.fail(inputError(error)),
                PartnerNotFound: (error) => Effect.fail(notFound(error))
              })
            )
          if (player_mode !== undefined) {
            yield* changes.setPlayerMode(actor, partner.slug, player_mode).pipe(Effect.mapError(notFound))
          }
          const withRtp = rtp_policy === undefined
            ? partner
            : yield* changes.setRtpPolicy(actor, partner.slug, rtp_policy).pipe(Effect.mapError(notFound))
          const saved = default_currency === undefined && currencies === undefined
            ? withRtp
            : yield* changes.setCurrencies(actor, partner.slug, { defaultCurrency: default_currency, currencies }).pipe(
              Effect.catchTags({
                // Named for the field the request changed (the list when both: the default is judged against it).
                InvalidPartnerInput: (error) =>
                  Effect.fail(
                    new ValidationFailed({
                      message: error.message,
                      errors: { [currencies === undefined ? "default_currency" : "currencies"]: [error.message] }
                    })
                  ),
                PartnerNotFound: (error) => Effect.fail(notFound(error))
              })
            )
          return yield* partnerAnswer(saved)
        })
      )
      .handle(
        "clearTestData",
        Effect.fn("AdminHandlers.clearTestData")(function*({ params }) {
          const { cleared, partner } = yield* changes.clearTestData(yield* currentActor, params.slug).pipe(
            Effect.mapError(notFound)
          )
          return {
            success: true as const,
            partner: yield* viewPartner(partners, players, partner),
            environment: "test" as const,
            cleared
          }
        })
      )
      .handle(
        "activate",
        ({ params }) =>
          Effect.flatMap(currentActor, (actor) => changes.setStatus(actor, params.slug, "active")).pipe(
            Effect.mapError(notFound),
            Effect.flatMap(partnerAnswer)
          )
      )
      .handle(
        "deactivate",
        ({ params }) =>
          Effect.flatMap(currentActor, (actor) => changes.setStatus(actor, params.slug, "inactive")).pipe(
            Effect.mapError(notFound),
            Effect.flatMap(partnerAnswer)
          )
      )
      .handle("rotateToken", ({ params, query }) => {
        const environment = query.environment ?? "live"
        return Effect.flatMap(currentActor, (actor) => changes.rotateToken(actor, params.slug, environment)).pipe(
          Effect.catchTags({
            PartnerNotFound: (error) => Effect.fail(notFound(error)),
            LiveTokenWithheld: (withheld) => Effect.fail(new Conflict({ message: withheld.message }))
          }),
          Effect.flatMap(({ partner, token }) =>
            Effect.map(
              viewPartner(partners, players, partner),
              (view) => ({ success: true as const, partner: view, environment, token })
            )
          )
        )
      })
      .handle("rotateWebhookSecret", ({ params, query }) => {
        const environment = query.environment ?? "live"
        return Effect.flatMap(currentActor, (actor) => changes.rotateWebhookSecret(actor, params.slug, environment))
          .pipe(
            Effect.mapError(notFound),
            Effect.flatMap(({ partner, webhookSecret }) =>
              Effect.map(
                viewPartner(partners, players, partner),
                (view) => ({ success: true as const, partner: view, environment, webhook_secret: webhookSecret })
              )
            )
          )
      })
  })
)
