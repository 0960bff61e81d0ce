import { Schema } from "effect"

/** Any failure of the sports provider, as partners see it: a 502. */
export class SportsProviderError extends Schema.TaggedError<SportsProviderError>()("SportsProviderError", {
  reason: Schema.Literals(["NotConfigured", "Timeout", "Unavailable", "Rejected", "InvalidResponse", "RateLimited"]),
  message: Schema.String,
  /** What the provider answered, when it answered; the token removed. */
  providerResponse: Schema.optional(Schema.Unknown)
}) {}
