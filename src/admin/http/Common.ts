import { Effect } from "effect"
import { CurrentAdmin } from "../../api/admin/AdminSecurity.ts"
import type { Actor } from "../../domain/Admin.ts"

export { invalid, notFound } from "../../api/identity/Errors.ts"

/** The admin making the current request, as the audit trail names them. */
export const currentActor = Effect.map(
  Effect.service(CurrentAdmin),
  (admin): Actor => ({ name: admin.account.email, via: "console" })
)
