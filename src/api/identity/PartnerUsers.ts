import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { IsoDate } from "../../domain/IsoDate.ts"
import { PartnerRole } from "../../domain/PartnerUser.ts"
import { Conflict, NotFound, ValidationFailed } from "./Errors.ts"
import { RequestValidation } from "../RequestValidation.ts"

export const UserView = Schema.Struct({
  id: Schema.Int,
  email: Schema.String,
  role: PartnerRole,
  status: Schema.Literals(["active", "invited", "invitation expired"]),
  invitationExpiresAt: Schema.NullOr(IsoDate).annotate({
    description: "When the open invitation link stops working"
  }),
  createdAt: IsoDate
}).pipe(Schema.encodeKeys({ invitationExpiresAt: "invitation_expires_at", createdAt: "created_at" }))

/** An invitation as it is handed out: the link (its secret after `#`, shown this once) and when it stops working. */
export const InvitationAnswer = Schema.Struct({
  success: Schema.Literal(true),
  user: UserView,
  invitationUrl: Schema.String.annotate({ description: "The one-time link to hand to the user: shown this once" }),
  expiresAt: IsoDate
}).pipe(Schema.encodeKeys({ invitationUrl: "invitation_url", expiresAt: "expires_at" }))

export const UsersAnswer = Schema.Struct({ success: Schema.Literal(true), users: Schema.Array(UserView) })

export const InvitePayload = Schema.Struct({ email: Schema.String.check(Schema.isMaxLength(254)), role: PartnerRole })

export const inviteAnnotations = OpenApi.annotations({
  summary: "Invite a user: the answer holds the one-time invitation link (PORTAL_INVITATION_TTL); " +
    "an e-mail already a user of this partner is 409"
})

export const userId = Schema.FiniteFromString.check(Schema.isInt())

/**
 * The console's new link: for a user who has set a password, a reset at their request, noted (never the link). A
 * request without a body (null) stays what it was, a pending user's new link.
 */
export const ReinvitePayload = [
  Schema.Struct({
    requestedByUser: Schema.optionalKey(
      Schema.String.check(Schema.isMaxLength(500)).annotate({
        description: "Required for a user who has set a password (the link resets it): what you checked that the " +
          "user asked for it (a ticket, a call); audited with the reset"
      })
    )
  }).pipe(Schema.encodeKeys({ requestedByUser: "requested_by_user" })),
  Schema.Null
] as const

/**
 * A partner's users. The portal's group (`PortalUsersGroup`, its owner's) and the console's (`partnerUsers` of the
 * admin API, an operator's, for any partner named by `:slug`) are made from these endpoints under their own paths,
 * path parameters and security.
 */
export const userEndpoints = <const P extends Schema.Struct.Fields>(prefix: "" | "/partners/:slug", params: P) => ({
  list: HttpApiEndpoint.get("list", `${prefix}/users` as `/${string}`, {
    params,
    success: UsersAnswer
  }),
  invite: HttpApiEndpoint.post("invite", `${prefix}/users` as `/${string}`, {
    params,
    payload: InvitePayload,
    success: InvitationAnswer,
    error: [ValidationFailed, Conflict]
  }).middleware(RequestValidation).annotateMerge(inviteAnnotations),
  setRole: HttpApiEndpoint.patch("setRole", `${prefix}/users/:id` as `/${string}`, {
    params: { ...params, id: userId },
    payload: Schema.Struct({ role: PartnerRole }),
    success: Schema.Struct({ success: Schema.Literal(true), user: UserView }),
    error: [ValidationFailed, NotFound, Conflict]
  }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
    summary: "Change a user's role (a partner keeps at least one owner: 409)"
  })),
  remove: HttpApiEndpoint.delete("remove", `${prefix}/users/:id` as `/${string}`, {
    params: { ...params, id: userId },
    success: Schema.Struct({ success: Schema.Literal(true), user: UserView }),
    error: [NotFound, Conflict, ValidationFailed]
  }).middleware(RequestValidation).annotateMerge(
    OpenApi.annotations({
      summary: "Remove a user: their sessions end at once (a partner keeps at least one owner: 409)"
    })
  ),
  reinvite: HttpApiEndpoint.post("reinvite", `${prefix}/users/:id/invitation` as `/${string}`, {
    params: { ...params, id: userId },
    success: InvitationAnswer,
    error: [NotFound, ValidationFailed, Conflict]
  }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
    summary: "A new invitation link for a user who has not set a password (the earlier one stops working); " +
      "one who has is 409: they change it themselves"
  }))
})
