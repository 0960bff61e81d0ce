import { HttpApiMiddleware } from "effect/http-api"
import { ValidationFailed } from "./Errors.ts"

/**
 * Turns request decoding failures (body, query) into the 422 envelope with
 * every failing field named. Applied to the endpoints that take input; what it
 * refuses and how is the HTTP edge's (platform/RequestRefusals.ts).
 */
export class RequestValidation extends HttpApiMiddleware.Service<RequestValidation>()(
  "partner-api/api/RequestValidation",
  { error: ValidationFailed }
) {}
