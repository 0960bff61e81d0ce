import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import {
  InvitationAnswer,
  inviteAnnotations,
  InvitePayload,
  ReinvitePayload,
  userEndpoints,
  userId,
  UsersAnswer
} from "../identity/PartnerUsers.ts"
import { RequestValidation } from "../RequestValidation.ts"
import { Conflict, NotFound, ValidationFailed } from "./AdminErrors.ts"
import { AdminAuth } from "./AdminSecurity.ts"

/** An operator's management of any partner's portal users (the partner's owner does the same in the portal). */
const params = { slug: Schema.String }
const console = userEndpoints("/partners/:slug", params)

// The console names the partner by its path, so listing and inviting answer 404 too, for a slug that names no
// partner (the portal's partner is the session's own: its list and invite never do).
const list = HttpApiEndpoint.get("list", "/partners/:slug/users", { params, success: UsersAnswer, error: NotFound })
const invite = HttpApiEndpoint.post("invite", "/partners/:slug/users", {
  params,
  payload: InvitePayload,
  success: InvitationAnswer,
  error: [ValidationFailed, Conflict, NotFound]
}).middleware(RequestValidation).annotateMerge(inviteAnnotations)
// An operator may reset the password of a user who has set one, at the user's request: the body notes it.
const reinvite = HttpApiEndpoint.post("reinvite", "/partners/:slug/users/:id/invitation", {
  params: { ...params, id: userId },
  payload: ReinvitePayload,
  success: InvitationAnswer,
  error: [NotFound, ValidationFailed]
}).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
  summary: "A new invitation link (the earlier one stops working); for a user who has set a password, a password " +
    "reset at their request: requested_by_user is required (422), and their password works until the link is used"
}))

export class AdminPartnerUsersGroup extends HttpApiGroup.make("partnerUsers")
  .add(list, invite, console.setRole, console.remove, reinvite)
  .middleware(AdminAuth)
{}
