import { Schema } from "effect"

/**
 * The admin API's error answers: those it shares with the portal's API (src/api/identity/Errors.ts) and its own,
 * `{success: false, message}` as they are.
 */
export {
  Conflict,
  NotFound,
  SessionForbidden,
  SessionUnauthorized,
  TooManyAttempts,
  ValidationFailed
} from "../identity/Errors.ts"

export class UpstreamFailed extends Schema.Error<UpstreamFailed>("UpstreamFailed")({
  success: Schema.tag(false),
  message: Schema.String
}, { httpApiStatus: 502, description: "The casino aggregator could not be read." }) {}
