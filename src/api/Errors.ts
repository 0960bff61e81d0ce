import { Schema } from "effect"
import { PartnerSummary, ProviderResponse } from "./Envelope.ts"

/**
 * The error envelope. Each status has its own class so the contract (and the
 * OpenAPI document) says which body goes with which status. `Schema.Error`
 * keeps `_tag` and other internals out of the bodies.
 */

export { ErrorMessages } from "../domain/ErrorMessages.ts"

export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")({
  success: Schema.tag(false),
  message: Schema.String
}, { httpApiStatus: 401, description: "Token missing, unknown, or the partner is not active." }) {}

export class TooManyRequests extends Schema.Error<TooManyRequests>("TooManyRequests")({
  success: Schema.tag(false),
  message: Schema.String
}, {
  httpApiStatus: 429,
  description: "The partner sent more requests than its rate limit allows (`RateLimit-Limit` a minute), or the " +
    "client's address sent more invalid tokens than it may (AUTH_FAILURE_LIMIT a minute); `Retry-After` says in " +
    "how many seconds the next one is admitted."
}) {}

export class NotFound extends Schema.Error<NotFound>("NotFound")({
  success: Schema.tag(false),
  message: Schema.String
}, { httpApiStatus: 404 }) {}

export class ValidationFailed extends Schema.Error<ValidationFailed>("ValidationFailed")({
  success: Schema.tag(false),
  message: Schema.String,
  errors: Schema.Record(Schema.String, Schema.Array(Schema.String))
}, { httpApiStatus: 422, description: "`errors` maps each failing field to its messages." }) {}

export class InternalError extends Schema.Error<InternalError>("InternalError")({
  success: Schema.tag(false),
  message: Schema.String,
  provider: Schema.optionalKey(Schema.String),
  provider_response: Schema.optionalKey(ProviderResponse)
}, { httpApiStatus: 500 }) {}

export class ProviderUnavailable extends Schema.Error<ProviderUnavailable>("ProviderUnavailable")({
  success: Schema.tag(false),
  message: Schema.String,
  partner: Schema.optionalKey(PartnerSummary),
  provider: Schema.String,
  provider_response: Schema.optionalKey(ProviderResponse)
}, { httpApiStatus: 502, description: "The sports provider could not be queried." }) {}

export class Forbidden extends Schema.Error<Forbidden>("Forbidden")({
  success: Schema.tag(false),
  message: Schema.String
}, {
  httpApiStatus: 403,
  description: "The token is valid but may not do this (a live token where only the test token may)."
}) {}

export class Conflict extends Schema.Error<Conflict>("Conflict")({
  success: Schema.tag(false),
  message: Schema.String
}, {
  httpApiStatus: 409,
  description: "Something already in progress stands in the way (a certification run of the partner)."
}) {}

export class Gone extends Schema.Error<Gone>("Gone")({
  success: Schema.tag(false),
  message: Schema.String,
  reason: Schema.Literals(["expired", "unknown_position"]).annotate({
    description: "The stream's words for it: expired, the changes after `since` are no longer kept " +
      "(STREAM_RETENTION); unknown_position, `since` is past the change log's head"
  })
}, {
  httpApiStatus: 410,
  description: "The change log cannot answer from the position `since` names: re-read the list without `since`, " +
    "then go on from its `meta.next_since`."
}) {}
