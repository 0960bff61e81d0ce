import { HttpApiGroup } from "effect/http-api"
import { userEndpoints } from "../identity/PartnerUsers.ts"
import { PortalAuth } from "./PortalSecurity.ts"

/** The owner's management of the partner's users (every change needs an owner; reading, any user). */
const portal = userEndpoints("", {})
export class PortalUsersGroup extends HttpApiGroup.make("users")
  .add(portal.list, portal.invite, portal.setRole, portal.remove, portal.reinvite)
  .middleware(PortalAuth)
{}
