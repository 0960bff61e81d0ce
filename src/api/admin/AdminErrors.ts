import { Schema } from "effect"

/**
 * The admin API's error answers: `{success: false, message}`, one class per
 * status, as the partner API's (and with its 404 and 422, src/api/Errors.ts).
 */
export { NotFound, ValidationFailed } from "../Errors.ts"

export class AdminUnauthorized extends Schema.Error<AdminUnauthorized>("AdminUnauthorized")({
  success: Schema.tag(false),
  message: Schema.String
}, { httpApiStatus: 401, description: "Not logged in, the session expired, or a wrong e-mail or password." }) {}

export class AdminForbidden extends Schema.Error<AdminForbidden>("AdminForbidden")({
  success: Schema.tag(false),
  message: Schema.String
}, { httpApiStatus: 403, description: "A change without the session's CSRF token, by a viewer, or before choosing a new password." }) {}

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
  description: "Too many failed log-ins for this e-mail and client (or this client) lately, or too many being checked at once; " +
    "`Retry-After` says when to try again."
}) {}

export class UpstreamFailed extends Schema.Error<UpstreamFailed>("UpstreamFailed")({
  success: Schema.tag(false),
  message: Schema.String
}, { httpApiStatus: 502, description: "The casino aggregator could not be read." }) {}
