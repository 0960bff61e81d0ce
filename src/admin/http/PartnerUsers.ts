import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../../api/admin/AdminApi.ts"
import type { Actor } from "../../domain/Admin.ts"
import { userManagement } from "../../identity/http/PartnerUsers.ts"
import type { UsersPartner } from "../../identity/PartnerUserRepo.ts"
import { Partners } from "../../partners/Partners.ts"
import { currentActor, notFound } from "./Common.ts"

/** The contract's "partnerUsers" group (src/api/admin/AdminPartnerUsers.ts): an operator manages any partner's users. */
export const AdminPartnerUsersHandlers = HttpApiBuilder.group(
  AdminApi,
  "partnerUsers",
  Effect.fn(function*(handlers) {
    const partners = yield* Partners
    const manage = yield* userManagement
    const partnerOf = (slug: string) => Effect.mapError(partners.show(slug), notFound)
    const as = <A, E>(slug: string, run: (actor: Actor, partner: UsersPartner) => Effect.Effect<A, E>) =>
      Effect.flatMap(Effect.all([currentActor, partnerOf(slug)]), ([actor, partner]) => run(actor, partner))
    return handlers
      .handle("list", ({ params }) => Effect.flatMap(partnerOf(params.slug), manage.list))
      .handle(
        "invite",
        ({ params, payload }) => as(params.slug, (actor, partner) => manage.invite(actor, partner, payload))
      )
      .handle(
        "setRole",
        ({ params, payload }) =>
          as(params.slug, (actor, partner) => manage.setRole(actor, partner, params.id, payload.role))
      )
      .handle("remove", ({ params }) => as(params.slug, (actor, partner) => manage.remove(actor, partner, params.id)))
      .handle(
        "reinvite",
        ({ params, payload }) =>
          as(
            params.slug,
            (actor, partner) => manage.reinviteOrReset(actor, partner, params.id, payload?.requestedByUser)
          )
      )
  })
)
