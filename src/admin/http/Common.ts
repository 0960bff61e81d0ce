import { Effect } from "effect"
import { NotFound, ValidationFailed } from "../../api/admin/AdminErrors.ts"
import { CurrentAdmin } from "../../api/admin/AdminSecurity.ts"
import type { Actor } from "../../domain/Admin.ts"

/** The admin making the current request, as the audit trail names them. */
export const currentActor = Effect.map(Effect.service(CurrentAdmin), (admin): Actor => ({ name: admin.account.email, via: "console" }))

/** A 422 naming one field, as the contract's ValidationFailed carries it. */
export const invalid = (field: string, message: string) => new ValidationFailed({ message, errors: { [field]: [message] } })

/** A service's "not found" as the contract's 404. */
export const notFound = (error: { readonly message: string }) => new NotFound({ message: error.message })

/** A callback URL as a form sends it: blank is none (null), absent is unchanged (undefined), else trimmed. */
export const blankIsNull = (url: string | null | undefined) =>
  url === undefined ? undefined : url === null || url.trim() === "" ? null : url.trim()
