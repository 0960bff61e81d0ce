import { Schema } from "effect"

/** Any failure of the sports provider, as partners see it: a 502. */
export class SportsProviderError extends Schema.TaggedError<SportsProviderError>()("SportsProviderError", {
  /**
   * `RateLimited`: a limit of calls for now (the hour's, the minute's: retry shortly); `QuotaSpent`: the provider's
   * quota of the day is spent (nothing until it turns); `KeyRefused`: the provider does not accept the configured key;
   * `NotInPlan`: the provider's plan does not cover what was asked (never worth retrying).
   */
  reason: Schema.Literals([
    "NotConfigured",
    "Timeout",
    "Unavailable",
    "Rejected",
    "InvalidResponse",
    "RateLimited",
    "QuotaSpent",
    "KeyRefused",
    "NotInPlan"
  ]),
  message: Schema.String,
  /** What the provider answered, when it answered; the token removed. */
  providerResponse: Schema.optional(Schema.Unknown)
}) {}
