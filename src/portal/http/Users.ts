import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PortalApi } from "../../api/portal/PortalApi.ts"
import type { Actor } from "../../domain/Admin.ts"
import type { UsersPartner } from "../../identity/PartnerUserRepo.ts"
import { userManagement } from "../../identity/http/PartnerUsers.ts"
import { partnerOfSession, portalActor } from "./Common.ts"

/** The contract's "users" group: the session's partner's users, managed by its owner as an operator manages them. */
export const PortalUsersHandlers = HttpApiBuilder.group(
  PortalApi,
  "users",
  Effect.fn(function*(handlers) {
    const manage = yield* userManagement
    const as = <A, E>(run: (actor: Actor, partner: UsersPartner) => Effect.Effect<A, E>) =>
      Effect.flatMap(Effect.all([portalActor, partnerOfSession]), ([actor, partner]) => run(actor, partner))
    return handlers
      .handle("list", () => Effect.flatMap(partnerOfSession, manage.list))
      .handle("invite", ({ payload }) => as((actor, partner) => manage.invite(actor, partner, payload)))
      .handle(
        "setRole",
        ({ params, payload }) => as((actor, partner) => manage.setRole(actor, partner, params.id, payload.role))
      )
      .handle("remove", ({ params }) => as((actor, partner) => manage.remove(actor, partner, params.id)))
      .handle("reinvite", ({ params }) => as((actor, partner) => manage.reinvite(actor, partner, params.id)))
  })
)
