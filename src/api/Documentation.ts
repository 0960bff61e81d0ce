import { ErrorMessages } from "./Errors.ts"
import { documentWebhooks } from "./Webhooks.ts"

/**
 * Shapes the generated OpenAPI document for the people who read it (the
 * /docs page and partners' tooling): what the schemas alone cannot say.
 */

type Json = Record<string, any>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null

/**
 * `Schema.Int` says "a JavaScript safe integer" with bounds of ±9007199254740991, which tell a partner nothing and
 * which doc pages show as the example. Real bounds (paging, sport ids) are kept.
 */
const dropSafeIntegerBounds = (node: unknown): void => {
  if (Array.isArray(node)) return node.forEach(dropSafeIntegerBounds)
  if (!isObject(node)) return
  if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum
  if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum
  for (const value of Object.values(node)) dropSafeIntegerBounds(value)
}

const resolve = (spec: Json, schema: unknown): Json | undefined => {
  if (!isObject(schema)) return undefined
  const ref = schema.$ref
  if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) {
    return resolve(spec, spec.components.schemas[ref.slice("#/components/schemas/".length)])
  }
  return schema
}

const kindOf = (spec: Json, schema: unknown): string => {
  const resolved = resolve(spec, schema)
  if (resolved === undefined) return "any"
  if (Array.isArray(resolved.anyOf)) return resolved.anyOf.map((member: unknown) => kindOf(spec, member)).join(" or ")
  return typeof resolved.type === "string" ? resolved.type : "any"
}

/** The keys under `data` of an operation's 200 answer, as `data.games` (array), ... */
export const responseKeys = (spec: Json, operation: Json): ReadonlyArray<string> => {
  const envelope = resolve(spec, operation.responses?.["200"]?.content?.["application/json"]?.schema)
  const data = resolve(spec, envelope?.properties?.data)
  if (data?.properties === undefined) return []
  return Object.entries(data.properties as Json).map(([key, schema]) => `\`data.${key}\` (${kindOf(spec, schema)})`)
}

const methods = ["get", "put", "post", "delete", "patch"] as const

/** Each operation's description ends with the keys its answer carries, so nobody has to guess `data.list`. */
const nameResponseKeys = (spec: Json) => {
  for (const pathItem of Object.values(spec.paths as Json)) {
    for (const method of methods) {
      const operation = pathItem[method]
      if (!isObject(operation)) continue
      const keys = responseKeys(spec, operation)
      if (keys.length === 0) continue
      const answers = `Answers, in the envelope's \`data\`: ${keys.join(", ")}.`
      operation.description = operation.description === undefined ? answers : `${operation.description}\n\n${answers}`
    }
  }
}

const integerHeader = (description: string) => ({ description, schema: { type: "integer", minimum: 0 } })

/** What every authenticated answer carries about the partner's rate limit (see PartnerRateLimit). */
const rateLimitHeaders: Json = {
  "RateLimit-Limit": integerHeader("Requests a minute this partner may send."),
  "RateLimit-Remaining": integerHeader("Requests left before the limit is reached."),
  "RateLimit-Reset": integerHeader("Seconds until the whole allowance is available again.")
}

const retryAfter = integerHeader("Seconds to wait before the next request is admitted.")

/**
 * Every answer of an operation past authentication (all but the 401) names the RateLimit-* headers, and
 * the 429 also `Retry-After`: response headers are not part of the schemas effect writes.
 */
const documentRateLimitHeaders = (spec: Json) => {
  for (const pathItem of Object.values(spec.paths as Json)) {
    for (const method of methods) {
      const responses = pathItem[method]?.responses
      if (!isObject(responses)) continue
      for (const [status, response] of Object.entries(responses)) {
        if (status === "401" || !isObject(response)) continue
        response.headers = {
          ...response.headers,
          ...(status === "429" ? { "Retry-After": retryAfter } : {}),
          ...rateLimitHeaders
        }
      }
    }
  }
}

const errorExamples: Record<string, Json> = {
  UnauthorizedEncoded: { success: false, message: ErrorMessages.missingToken },
  ValidationFailedEncoded: {
    success: false,
    message: ErrorMessages.invalidData,
    errors: { page: ["The page field must be an integer."], per_page: ["The per page field must be at least 1."] }
  },
  NotFoundEncoded: { success: false, message: ErrorMessages.eventNotFound },
  TooManyRequestsEncoded: { success: false, message: ErrorMessages.rateLimited(1200, 1) },
  InternalErrorEncoded: { success: false, message: ErrorMessages.internal },
  GoneEncoded: {
    success: false,
    message: "Changes after since=1048576 are no longer kept (they are kept from position 1050112): re-read the list " +
      "without since, then go on from its meta.next_since.",
    reason: "expired"
  },
  ProviderUnavailableEncoded: {
    success: false,
    message: "The sports provider could not be queried.",
    provider: "betsapi",
    provider_response: { error: "timeout" }
  }
}

/** The API-level OpenAPI transform of the partner API (see Api.ts). */
export const documentPartnerApi = (spec: Json): Json => {
  documentWebhooks(spec)
  dropSafeIntegerBounds(spec)
  nameResponseKeys(spec)
  documentRateLimitHeaders(spec)
  for (const [name, example] of Object.entries(errorExamples)) {
    const schema = spec.components?.schemas?.[name]
    if (isObject(schema)) schema.examples = [example]
  }
  return spec
}
