import { Schema } from "effect"
import { NotFound, ValidationFailed } from "../Errors.ts"

/**
 * The error answers the two session APIs share, the console's (src/api/admin) and the portal's (src/api/portal):
 * `{success: false, message}`, one class per status, with the partner API's 404 and 422 (src/api/Errors.ts). Both
 * are raised by the same session checks (src/identity/http/SessionHttp.ts). The identifiers are the ones the
 * OpenAPI documents have always named them by.
 */
export { NotFound, ValidationFailed }

export class SessionUnauthorized extends Schema.Error<SessionUnauthorized>("AdminUnauthorized")({
  success: Schema.tag(false),
  message: Schema.String
}, { httpApiStatus: 401, description: "Not logged in, the session expired, or a wrong e-mail or password." }) {}

export class SessionForbidden extends Schema.Error<SessionForbidden>("AdminForbidden")({
  success: Schema.tag(false),
  message: Schema.String
}, {
  httpApiStatus: 403,
  description: "A change without the session's CSRF token, by a viewer, or before choosing a new password."
}) {}

export class Conflict extends Schema.Error<Conflict>("Conflict")({
  success: Schema.tag(false),
  message: Schema.String
}, { httpApiStatus: 409 }) {}

export class TooManyAttempts extends Schema.Error<TooManyAttempts>("TooManyAttempts")({
  success: Schema.tag(false),
  message: Schema.String,
  retry_after_seconds: Schema.Int
}, {
  httpApiStatus: 429,
  description:
    "Too many failed log-ins for this e-mail and client (or this client) lately, or too many being checked at once; " +
    "`Retry-After` says when to try again."
}) {}

/** A 422 naming one field, as the contract's ValidationFailed carries it. */
export const invalid = (field: string, message: string) =>
  new ValidationFailed({ message, errors: { [field]: [message] } })

/** A service's "not found" as the contract's 404. */
export const notFound = (error: { readonly message: string }) => new NotFound({ message: error.message })
