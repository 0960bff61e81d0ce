import { ByteSize, Context, Effect, type Schema, SchemaIssue } from "effect"
import { HttpMethod, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { unhandled } from "effect/Types"
import { type HttpApiEndpoint, HttpApiError, type HttpApiSchema } from "effect/http-api"
import { decodeUrlComponent, isStorableText, storableTextMessage } from "../domain/Text.ts"
import { makeRecentMap } from "./RecentMap.ts"
import { readBodyText } from "./RequestBody.ts"

// The HTTP edge's refusals of input: what the contract's RequestValidation middleware (src/api) does
// when it runs. The contract declares it; server.ts provides it with this and the contract's 422.

/**
 * Messages follow the `The :attribute field ...` convention partners know
 * from Laravel-style APIs; `:attribute` becomes the field name with spaces.
 * Schemas in src/api carry their own messages; these cover the rest.
 */
const leafMessage: SchemaIssue.LeafHook = (issue) => {
  const annotations = "annotations" in issue && issue.annotations !== undefined
    ? issue.annotations
    : "ast" in issue
    ? issue.ast.annotations
    : undefined
  const annotated = annotations?.[
    issue._tag === "MissingKey"
      ? "messageMissingKey"
      : issue._tag === "UnexpectedKey"
      ? "messageUnexpectedKey"
      : "message"
  ]
  if (typeof annotated === "string") return annotated
  switch (issue._tag) {
    case "MissingKey":
      return "The :attribute field is required."
    case "InvalidType":
      switch (issue.ast._tag) {
        case "String":
          return "The :attribute field must be a string."
        case "Number":
          return "The :attribute field must be a number."
        case "Boolean":
          return "The :attribute field must be true or false."
        case "Objects":
          return "The :attribute field must be an object."
        case "Null":
        case "Undefined":
          return "The :attribute field is not allowed."
        default:
          return "The :attribute field is invalid."
      }
    case "UnexpectedKey":
      return "The :attribute field is not allowed."
    default:
      return "The :attribute field is invalid."
  }
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({ leafHook: leafMessage })

/** A field's name, the input's keys joined by `.`; an item of a list (`kinds=x&kinds=y`) is named by its list. */
const fieldOf = (path: ReadonlyArray<PropertyKey>) =>
  path.filter((segment) => typeof segment !== "number").map(String).join(".")

/** Every failing field with its messages, keyed like the input (`a.b` for nested fields). */
export const validationErrors = (issue: SchemaIssue.Issue): Record<string, Array<string>> => {
  const errors: Record<string, Array<string>> = {}
  for (const { message, path } of formatter(issue).issues) {
    const field = path === undefined || path.length === 0 ?
      "body" :
      fieldOf(
        path.map((segment) =>
          typeof segment === "object" && segment !== null && "key" in segment ? segment.key : segment
        )
      )
    const attribute = field === "body"
      ? "request body"
      : String(field.split(".").at(-1)).replaceAll("_", " ")
    const text = message === "Expected a valid JSON body"
      ? "The request body must be valid JSON."
      : field === "body" && message.startsWith("Expected ")
      ? "The request body must be a JSON object."
      : message.replaceAll(":attribute", attribute)
    const list = (errors[field] ??= [])
    if (!list.includes(text)) list.push(text)
  }
  return errors
}

/** Every failing field with its messages. */
export type FieldErrors = Record<string, Array<string>>

const isJson = (contentType: string) => {
  const mediaType = contentType.split(";")[0].trim().toLowerCase()
  return mediaType === "application/json" || (mediaType.startsWith("application/") && mediaType.endsWith("+json"))
}

const attributeOf = (field: string) => field.replaceAll("_", " ")

/**
 * Query values PostgreSQL could not store as sent, whatever the endpoint's
 * schema: percent-escapes that are not UTF-8 (URLSearchParams would make
 * them U+FFFD), NUL and unpaired surrogates. Checked on the raw query, so
 * no field an endpoint adds later can let them through.
 */
export const unstorableQueryValues = (url: string): Record<string, Array<string>> => {
  const errors: Record<string, Array<string>> = {}
  const start = url.indexOf("?")
  if (start === -1) return errors
  for (const part of url.slice(start + 1).split("&")) {
    if (part === "") continue
    const equals = part.indexOf("=")
    const rawKey = equals === -1 ? part : part.slice(0, equals)
    const key = decodeUrlComponent(rawKey) ?? rawKey
    const value = decodeUrlComponent(equals === -1 ? "" : part.slice(equals + 1))
    const message = value === undefined
      ? "The :attribute field must be UTF-8 text."
      : !isStorableText(value) || !isStorableText(key)
      ? storableTextMessage
      : undefined
    if (message !== undefined) errors[key] = [message.replaceAll(":attribute", attributeOf(key))]
  }
  return errors
}

/** Query texts found storable kept per endpoint, the least recently read first out; a longer text is not kept. */
const storableQueriesKept = 256
const longestKept = 1024

/**
 * unstorableQueryValues once per distinct query text: a partner polls the same query, and reading it again (split,
 * percent-decoded, scanned) cost as much as decoding it. Only a text with nothing to refuse is kept (the refusal of
 * one is read anew, as before); the check depends on the text alone.
 */
const queryTextChecks = () => {
  const storable = makeRecentMap<string, true>(storableQueriesKept)
  return (url: string): FieldErrors | undefined => {
    const start = url.indexOf("?")
    if (start === -1) return undefined
    const text = url.slice(start)
    if (storable.get(text, 0) !== undefined) return undefined
    const errors = unstorableQueryValues(url)
    if (Object.keys(errors).length > 0) return errors
    if (text.length <= longestKept) storable.set(text, true, Infinity)
    return undefined
  }
}

/**
 * The request validation middleware: a body that is not JSON, and any body,
 * path or query that does not decode, become one failure naming every
 * failing field, made by `invalidData` (the contract's 422). Query values
 * and bodies are read strictly first (see unstorableQueryValues,
 * readBodyText): a body too large is a 413, one that is not UTF-8 or nests
 * too deep is invalid, before any parse. It runs after authentication, so
 * an anonymous caller learns nothing about an endpoint's inputs.
 */
export const validateRequests = <E>(invalidData: (errors: FieldErrors) => E) =>
(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled>,
  { endpoint }: { readonly endpoint: HttpApiEndpoint.Top }
): Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled | E, HttpServerRequest.HttpServerRequest> => {
  // Applied once per endpoint, when the routes are built: what the endpoint takes is read here, not per request.
  // A streamed payload (JSON lines) is read by its handler, within the limits its schema sets; its media type
  // and declared size are checked here, so those refusals are in the envelope too.
  const streamed = [...endpoint.payload.values()].flatMap((payload) =>
    payload.encoding._tag === "Stream"
      ? [payload.schemas[0] as HttpApiSchema.StreamUint8Array | HttpApiSchema.StreamNdjson<Schema.Top>]
      : []
  )
  const decoded = Effect.catch(
    httpEffect,
    (error): Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled | E> =>
      HttpApiError.HttpApiSchemaError.is(error) &&
        (error.kind === "Payload" || error.kind === "Query" || error.kind === "Params")
        ? Effect.fail(invalidData(validationErrors(error.cause.issue)))
        : Effect.fail(error)
  )
  const queryErrorsOf = queryTextChecks()
  // An endpoint without a body (the reads) only has its query checked: one step per request.
  if (endpoint.payload.size === 0) {
    return Effect.withFiber((fiber) => {
      const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
      const queryErrors = queryErrorsOf(request.url)
      return queryErrors !== undefined ? Effect.fail(invalidData(queryErrors)) : decoded
    })
  }
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.gen(function*() {
      const queryErrors = queryErrorsOf(request.url)
      if (queryErrors !== undefined) return yield* Effect.fail(invalidData(queryErrors))
      if (streamed.length > 0 && HttpMethod.hasBody(request.method)) {
        const mediaType = (request.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase()
        if (!endpoint.payload.has(mediaType)) {
          return yield* Effect.fail(invalidData({
            body: [`The request body must be sent with Content-Type: ${[...endpoint.payload.keys()].join(" or ")}.`]
          }))
        }
        const maxBytes = streamed[0].maxBytes
        if (
          maxBytes !== undefined && Number(request.headers["content-length"] ?? 0) > ByteSize.toNumberUnsafe(maxBytes)
        ) {
          return HttpServerResponse.jsonUnsafe(
            { success: false, message: `The request body is larger than ${ByteSize.format(maxBytes)}.` },
            { status: 413 }
          )
        }
      }
      if (HttpMethod.hasBody(request.method) && streamed.length === 0) {
        const contentType = request.headers["content-type"]
        if (contentType !== undefined && !isJson(contentType)) {
          return yield* Effect.fail(invalidData({
            body: ["The request body must be JSON, sent with Content-Type: application/json."]
          }))
        }
        const body = yield* Effect.result(readBodyText(request))
        if (body._tag === "Failure") {
          if (body.failure.reason === "TooLarge") {
            return HttpServerResponse.jsonUnsafe({ success: false, message: body.failure.message }, { status: 413 })
          }
          return yield* Effect.fail(invalidData({ body: [body.failure.message] }))
        }
      }
      return yield* decoded
    }))
}
