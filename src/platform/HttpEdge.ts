import { Cause, Context, Effect, Exit, Schema } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { ErrorMessages, InternalError, NotFound } from "../api/Errors.ts"
import { maxBodyBytes } from "./RequestBody.ts"

/**
 * What the access log learns while a request runs. The partner is only
 * known once the auth middleware, deep inside the route, has resolved it.
 */
export const RequestLog = Context.Reference<{ partnerId: number | undefined }>(
  "partner-api/platform/RequestLog",
  { defaultValue: () => ({ partnerId: undefined }) }
)

const errorBody = (status: number, message: string) =>
  HttpServerResponse.jsonUnsafe({ success: false, message }, { status })

const encodeNotFound = Schema.encodeSync(NotFound)
const encodeInternal = Schema.encodeSync(InternalError)
const routeNotFound = HttpServerResponse.jsonUnsafe(
  encodeNotFound(new NotFound({ message: ErrorMessages.routeNotFound })),
  { status: 404 }
)
const internalError = HttpServerResponse.jsonUnsafe(
  encodeInternal(new InternalError({ message: ErrorMessages.internal })),
  { status: 500 }
)

/**
 * Answers for failures that never reached an endpoint's own error encoder:
 * unknown routes, unreadable bodies and defects. Each gets the error
 * envelope; a defect's details go to the log only.
 */
const failureResponse = (cause: Cause.Cause<unknown>) =>
  Effect.gen(function*() {
    for (const reason of cause.reasons) {
      const error = reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : undefined
      if (HttpServerResponse.isHttpServerResponse(error)) return error
      if (HttpServerError.isHttpServerError(error)) {
        switch (error.reason._tag) {
          case "RouteNotFound":
            return routeNotFound
          case "RequestParseError":
            return error.reason.reason === "BodyTooLarge"
              ? errorBody(413, `The request body is larger than ${maxBodyBytes / 1024} KiB.`)
              : errorBody(400, "The request body could not be read.")
        }
      }
    }
    yield* Effect.logError("Unhandled failure while serving a request", cause)
    return internalError
  })

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

const quietPaths = new Set(["/health", "/ready"])

/**
 * The outermost layer of every request: one access-log line (method, path,
 * status, duration, partner id; never a header, so never a token) and the
 * error envelope for anything that escaped the routes.
 */
export const HttpEdgeMiddleware = HttpRouter.middleware((httpEffect) =>
  Effect.withFiber((fiber) => {
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    const startedAt = performance.now()
    const log = { partnerId: undefined as number | undefined }
    const writeLog = (status: number) => {
      const path = pathOf(request.url)
      const line = quietPaths.has(path) ? Effect.logDebug("request") : Effect.logInfo("request")
      return line.pipe(Effect.annotateLogs({
        method: request.method,
        path,
        status,
        duration_ms: Math.round((performance.now() - startedAt) * 100) / 100,
        partner_id: log.partnerId ?? null
      }))
    }
    return httpEffect.pipe(
      Effect.provideService(RequestLog, log),
      Effect.catchCause((cause) => Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : failureResponse(cause)),
      Effect.onExit((exit) => writeLog(Exit.isSuccess(exit) ? exit.value.status : 499))
    )
  }), { global: true })

export { MaxBodySizeLive } from "./RequestBody.ts"

/**
 * Load-balancer probes, outside the partner prefix and without auth:
 * /health says the process is up, /ready that the database answers.
 */
export const HealthRoutes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const sql = yield* SqlClient.SqlClient
  yield* router.add("GET", "/health", Effect.succeed(HttpServerResponse.jsonUnsafe({ success: true, message: "ok" })))
  yield* router.add(
    "GET",
    "/ready",
    sql`SELECT 1`.pipe(
      Effect.timeout("2 seconds"),
      Effect.as(HttpServerResponse.jsonUnsafe({ success: true, message: "ready" })),
      Effect.catchCause((cause) =>
        Effect.as(
          Effect.logWarning("Readiness check failed", cause),
          errorBody(503, "The database is not reachable.")
        )
      )
    )
  )
}))
