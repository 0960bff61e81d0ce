import { Clock, Effect } from "effect"
import { Conflict, invalid, notFound } from "../../api/identity/Errors.ts"
import type { Actor } from "../../domain/Admin.ts"
import type { PartnerRole, PartnerUser } from "../../domain/PartnerUser.ts"
import { AppConfig, publicBaseUrl } from "../../platform/AppConfig.ts"
import { type Invited, PartnerUsers } from "../PartnerUsers.ts"
import type { UsersPartner } from "../PartnerUserRepo.ts"

/** Where an invitation is accepted: the secret after `#`, which a browser never sends to a server or a log. */
export const invitationPath = "/portal/invitation"

/** The one-time link an invitation is handed over as. */
export const invitationUrl = (app: AppConfig["Service"], secret: string) =>
  `${publicBaseUrl(app)}${invitationPath}#${secret}`

/** A user as the portal's and the console's answers show them. */
export const userView = (user: PartnerUser, now: number) => ({
  id: user.id,
  email: user.email,
  role: user.role,
  status: user.statusAt(now),
  invitationExpiresAt: user.invitationExpiresAt ?? null,
  createdAt: user.createdAt
})

/**
 * A partner's users as an owner (portal) or an operator (console) manages them: the same answers and refusals, for
 * the partner and the actor each side names.
 */
export const userManagement = Effect.gen(function*() {
  const users = yield* PartnerUsers
  const app = yield* AppConfig
  const now = Clock.currentTimeMillis
  const view = (user: PartnerUser) => Effect.map(now, (at) => userView(user, at))
  const invitation = ({ expiresAt, invitation, user }: Invited) =>
    Effect.map(view(user), (shown) => ({
      success: true as const,
      user: shown,
      invitationUrl: invitationUrl(app, invitation),
      expiresAt
    }))
  const changed = (user: PartnerUser) => Effect.map(view(user), (shown) => ({ success: true as const, user: shown }))
  const refusals = {
    PartnerUserNotFound: (error: { readonly message: string }) => Effect.fail(notFound(error)),
    LastOwner: (error: { readonly message: string }) => Effect.fail(new Conflict({ message: error.message }))
  }
  return {
    list: (partner: UsersPartner) =>
      Effect.flatMap(
        users.list(partner.id),
        (all) => Effect.map(Effect.forEach(all, view), (shown) => ({ success: true as const, users: shown }))
      ),
    invite: (actor: Actor, partner: UsersPartner, payload: { readonly email: string; readonly role: PartnerRole }) =>
      users.invite(actor, partner, payload).pipe(
        Effect.catchTags({
          PartnerEmailTaken: (error) => Effect.fail(new Conflict({ message: error.message })),
          InvalidAccountInput: (error) => Effect.fail(invalid(error.field, error.message))
        }),
        Effect.flatMap(invitation)
      ),
    setRole: (actor: Actor, partner: UsersPartner, id: number, role: PartnerRole) =>
      users.setRole(actor, partner, id, role).pipe(Effect.catchTags(refusals), Effect.flatMap(changed)),
    remove: (actor: Actor, partner: UsersPartner, id: number) =>
      users.remove(actor, partner, id).pipe(Effect.catchTags(refusals), Effect.flatMap(changed)),
    /** The portal's: an owner's new link for a user who has not set a password (one who has is theirs: 409). */
    reinvite: (actor: Actor, partner: UsersPartner, id: number) =>
      users.reinvite(actor, partner, id).pipe(
        Effect.catchTags({
          PartnerUserNotFound: refusals.PartnerUserNotFound,
          PasswordSetByUser: (error) => Effect.fail(new Conflict({ message: error.message }))
        }),
        Effect.flatMap(invitation)
      ),
    /** The console's: a new link, a password reset for a user who has set one, with the note of their request. */
    reinviteOrReset: (actor: Actor, partner: UsersPartner, id: number, requestedByUser: string | undefined) =>
      users.reinvite(actor, partner, id, requestedByUser).pipe(
        Effect.catchTags({
          PartnerUserNotFound: refusals.PartnerUserNotFound,
          PasswordSetByUser: () =>
            Effect.fail(invalid(
              "requested_by_user",
              "The requested_by_user field is required for a user who has set a password: a new link resets it, " +
                "so note how the user asked for it (a ticket, a call)."
            ))
        }),
        Effect.flatMap(invitation)
      )
  }
})
