import { Cause, Context, Effect, Exit, References, Tracer } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { ErrorMessages } from "../domain/ErrorMessages.ts"
import { type IncomingMessage, Server, type ServerResponse, STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { DirectAnswers } from "./DirectAnswers.ts"
import { recordDirectAnswer, recordRequest } from "./Metrics.ts"
import { maxBodyBytes } from "./RequestBody.ts"
import { type RequestRecord, RequestRecords } from "./RequestRecord.ts"
import * as DatabaseHealth from "./DatabaseHealth.ts"
import { SharedStore } from "./SharedStore.ts"

/** The error envelope's body, as the contract's errors encode it (src/api/Errors.ts), for answers outside an endpoint. */
const errorBody = (status: number, message: string) =>
  HttpServerResponse.jsonUnsafe({ success: false, message }, { status })

const routeNotFound = errorBody(404, ErrorMessages.routeNotFound)
const internalError = errorBody(500, ErrorMessages.internal)

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

const quietPaths = new Set(["/health", "/ready", "/metrics"])

/**
 * The matched route's pattern (`/api/partner/v1/sports/events/:eventId/odds`), never the raw path: the router's, or
 * the direct answer's; `unmatched` for none.
 */
const routePattern = (context: Context.Context<never>, record: RequestRecord) =>
  Context.getOrUndefined(context, HttpRouter.RouteContext)?.route.path ?? record.route ?? "unmatched"

/**
 * The request through the direct answer for its path (DirectAnswers), or on to the router when there is none, or
 * when it declines: a GET of an exact path, without a query.
 */
const throughDirect = <E, R>(
  answers: DirectAnswers["Service"],
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  record: RequestRecord,
  routed: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> => {
  if (request.method !== "GET" || path.length !== request.url.length) return routed
  const found = answers.find(path)
  if (found === undefined) return routed
  const [direct, param] = found
  return Effect.flatMap(direct.answer(request, param), (response) => {
    if (response === undefined) return routed
    record.route = direct.route
    return Effect.withFiber((fiber) => {
      recordDirectAnswer(direct.route, fiber.context)
      // The route on the request's span, as the router puts the route it matched (only while tracing is on).
      if (fiber.getRef(References.TracerEnabled)) {
        const span = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
        if (span !== undefined && span._tag === "Span" && span.sampled) span.attribute("http.route", direct.route)
      }
      return Effect.succeed(response)
    })
  })
}

/** The three APIs: the partner API's, the console's and the portal's (not their pages, which set their own). */
const isApiPath = (path: string) =>
  path.startsWith("/api/") || path.startsWith("/admin/api/") || path.startsWith("/portal/api/")

/**
 * An answer with the headers the request's record holds and, on the APIs' paths, the APIs' own, set in one copy. The
 * APIs' answers carry tokens, secrets, invitation links and a partner's books: no browser or proxy keeps them
 * (no-store), and none reads them as another type than they say (nosniff). An answer that says its own caching (the
 * change stream's) keeps it.
 */
const finished = (response: HttpServerResponse.HttpServerResponse, path: string, record: RequestRecord) => {
  const api = isApiPath(path)
  const retryAfter = response.status === 429 && response.headers["retry-after"] === undefined &&
      record.headers?.["retry-after"] === undefined
    ? record.retryAfterOn429
    : undefined
  if (!api && record.headers === undefined && retryAfter === undefined) return response
  return HttpServerResponse.setHeaders(response, {
    ...record.headers,
    ...(retryAfter === undefined ? undefined : { "retry-after": retryAfter }),
    ...(api
      ? {
        "cache-control": response.headers["cache-control"] ?? "no-store",
        "x-content-type-options": "nosniff"
      }
      : undefined)
  })
}

/**
 * The edge step, the outermost of every request and the only one around it (auth, inside the partner API, is the
 * other): one record added to the context (RequestRecords), one clock read at each end, the error envelope for
 * anything that escaped the routes, the answer's headers set once (finished), and at the exit one access-log line
 * (method, path, status, duration, partner id and its token's environment; never a header, so never a token) and
 * one metrics record, both from what the record holds. Before the router, a request one of the DirectAnswers takes
 * is answered there (throughDirect).
 */
export const HttpEdgeMiddleware = HttpRouter.middleware(
  Effect.map(Effect.service(DirectAnswers), (answers) => (httpEffect) =>
    Effect.withFiber((fiber) => {
      const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
      const startedAt = performance.now()
      const path = pathOf(request.url)
      const record: RequestRecord = {
        partnerId: undefined,
        partnerSlug: undefined,
        environment: undefined,
        headers: undefined,
        retryAfterOn429: undefined,
        route: undefined
      }
      // Added without a restore, as the router adds the matched route: the request's fiber ends with the request.
      // So at the exit the context still holds the route the router matched, read there.
      fiber.setContext(Context.add(fiber.context, RequestRecords, record))
      return Effect.matchCauseEffect(throughDirect(answers, request, path, record, httpEffect), {
        onSuccess: (response) => Effect.succeed(finished(response, path, record)),
        onFailure: (cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : Effect.map(failureResponse(cause), (response) => finished(response, path, record))
      }).pipe(
        Effect.onExit((exit) =>
          Effect.withFiber((fiber) => {
            const status = Exit.isSuccess(exit) ? exit.value.status : 499
            const millis = performance.now() - startedAt
            recordRequest({
              route: routePattern(fiber.context, record),
              method: request.method,
              status,
              partner: record.partnerSlug ?? "none",
              environment: record.environment ?? "none",
              seconds: millis / 1000
            }, fiber.context)
            return (quietPaths.has(path) ? Effect.logDebug("request") : Effect.logInfo("request")).pipe(
              Effect.annotateLogs({
                method: request.method,
                path,
                status,
                duration_ms: Math.round(millis * 100) / 100,
                partner_id: record.partnerId ?? null,
                environment: record.environment ?? null
              })
            )
          })
        )
      )
    })),
  { global: true }
)

export { MaxBodySizeLive } from "./RequestBody.ts"

/**
 * Load-balancer probes, outside the partner prefix and without auth:
 * /health says the process is up, /ready that the database answers (and
 * whether the shared store, Redis, does: `shared_store`).
 */
export const HealthRoutes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const sql = yield* SqlClient.SqlClient
  const shared = yield* SharedStore
  yield* router.add("GET", "/health", Effect.succeed(HttpServerResponse.jsonUnsafe({ success: true, message: "ok" })))
  yield* router.add(
    "GET",
    "/ready",
    DatabaseHealth.ping.pipe(
      Effect.provideService(SqlClient.SqlClient, sql),
      // Redis down is said, not refused: the instance still answers, from the provider within its part of the quota.
      Effect.andThen(shared.check),
      Effect.map((state) =>
        HttpServerResponse.jsonUnsafe(
          state === "redis-unreachable"
            ? {
              success: true,
              message: "ready, but Redis is unreachable: this instance uses its own memory",
              shared_store: state
            }
            : { success: true, message: "ready", shared_store: state }
        )
      ),
      Effect.catchCause((cause) =>
        Effect.as(
          Effect.logWarning("Readiness check failed", cause),
          errorBody(503, "The database is not reachable.")
        )
      )
    )
  )
}))

const parserRefusal = (code: string | undefined): readonly [number, string] => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "The request headers are too large."]
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return [413, "The request's chunk extensions are too large."]
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "The request did not arrive in time."]
    default:
      return [400, "The request is not valid HTTP."]
  }
}

/**
 * What Node's HTTP parser refuses (a 64 KB header, a bad method, CR or LF
 * inside a header) never reaches the routes; Node would answer an empty
 * 400 or 431. This answers the same status in the error envelope, then
 * closes the connection, as Node does.
 */
export const answerClientError = (error: Error & { readonly code?: string }, socket: Duplex) => {
  // The parser, still attached, refuses each further piece of the same request: the answer is on its way.
  if (lingering.has(socket)) return
  const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (error.code === "ECONNRESET" || !socket.writable || inProgress?.headersSent === true) {
    socket.destroy()
    return
  }
  const [status, message] = parserRefusal(error.code)
  const body = JSON.stringify({ success: false, message })
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
  linger(socket)
}

/** How long, and how much more, a refused request is read after its answer before its connection is closed. */
const lingerMillis = 2_000
const lingerBytes = 16 * 1024 * 1024
const lingering = new WeakSet<Duplex>()

/**
 * A lingering close, as nginx makes one: closing at once while the client still sends would reset the connection,
 * and the client, failing its write (EPIPE), may never read the answer. What it goes on sending is read and dropped
 * until it stops, for at most `lingerMillis` and `lingerBytes`.
 */
const linger = (socket: Duplex) => {
  lingering.add(socket)
  let read = 0
  const stop = () => socket.destroy()
  const timer = setTimeout(stop, lingerMillis)
  timer.unref()
  socket.once("close", () => clearTimeout(timer))
  socket.on("end", stop)
  socket.on("data", (chunk: Buffer) => {
    read += chunk.length
    if (read > lingerBytes) stop()
  })
  socket.resume()
}

const missingHost = JSON.stringify({ success: false, message: "The request has no Host header." })
const unmetExpectation = JSON.stringify({ success: false, message: "The Expect header's expectation cannot be met." })

/** An answer in the error envelope written on Node's own response object, then the connection closes. */
const answerDirectly = (response: ServerResponse, status: number, body: string) => {
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    connection: "close"
  })
  response.end(body)
}

/** An HTTP/1.1 request without Host, which RFC 9112 says a server must refuse with a 400 (HTTP/1.0 may omit it). */
const lacksHost = (request: IncomingMessage) =>
  request.httpVersionMajor === 1 && request.httpVersionMinor === 1 && request.headers.host === undefined

/**
 * Node refuses an HTTP/1.1 request without Host itself, with an empty 400,
 * before any listener hears of it. Its check is off here and made the same
 * way, answering in the envelope: the routes never see such a request.
 */
class EdgeServer extends Server {
  constructor() {
    super({ requireHostHeader: false })
  }
  override emit(event: string | symbol, ...args: Array<any>): boolean {
    // The events Node would have refused such a request before: a request, and one that expects 100 Continue.
    if ((event === "request" || event === "checkContinue" || event === "checkExpectation") && lacksHost(args[0])) {
      answerDirectly(args[1] as ServerResponse, 400, missingHost)
      return true
    }
    return super.emit(event as string, ...args)
  }
}

/**
 * The Node HTTP server the service listens with: parser refusals, a missing
 * Host and an `Expect` other than 100-continue (Node's own answer would be
 * an empty 417) answer in the envelope.
 */
export const createHttpServer = () =>
  new EdgeServer()
    .on("clientError", answerClientError)
    .on("checkExpectation", (_request: IncomingMessage, response: ServerResponse) =>
      answerDirectly(response, 417, unmetExpectation))
