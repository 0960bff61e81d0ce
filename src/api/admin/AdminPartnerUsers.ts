import { Schema } from "effect"
import { HttpApiGroup } from "effect/http-api"
import { userEndpoints } from "../identity/PartnerUsers.ts"
import { AdminAuth } from "./AdminSecurity.ts"

/** An operator's management of any partner's portal users (the partner's owner does the same in the portal). */
const console = userEndpoints("/partners/:slug", { slug: Schema.String })
export class AdminPartnerUsersGroup extends HttpApiGroup.make("partnerUsers")
  .add(console.list, console.invite, console.setRole, console.remove, console.reinvite)
  .middleware(AdminAuth)
{}
