/**
 * The messages of the error envelope that do not depend on the request:
 * the contract's (src/api/Errors.ts) and the HTTP edge's, one text each.
 */
export const ErrorMessages = {
  missingToken: "API key do parceiro nao informada.",
  invalidPartner: "Parceiro invalido ou inativo.",
  invalidData: "The given data was invalid.",
  routeNotFound: "Route not found.",
  internal: "Internal server error.",
  eventNotFound: "Event not found.",
  invalidTokensLimited: (retryAfterSeconds: number) =>
    `Too many requests with an invalid token from this address. Retry in ${retryAfterSeconds} ${
      retryAfterSeconds === 1 ? "second" : "seconds"
    }.`,
  rateLimited: (limit: number, retryAfterSeconds: number) =>
    `Too many requests: this partner may send ${limit} ${
      limit === 1 ? "request" : "requests"
    } a minute. Retry in ${retryAfterSeconds} ${retryAfterSeconds === 1 ? "second" : "seconds"}.`
} as const
