import { Schema } from "effect"
import { withoutSecrets } from "../platform/Secrets.ts"
import type { UpstreamFailure } from "../platform/UpstreamHttp.ts"

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

/**
 * A failed call to the provider (effect's HttpClient, read by platform/UpstreamHttp), in partners' words; `fail` makes
 * the error (each provider scrubs its secret from what is shown).
 */
export const providerErrorOf = (
  fail: (reason: SportsProviderError["reason"], message: string, providerResponse?: unknown) => SportsProviderError
) =>
(failure: UpstreamFailure): SportsProviderError => {
  switch (failure.kind) {
    case "Unreachable":
      return fail("Unavailable", "The sports provider could not be reached.")
    case "Unreadable":
      return fail("Unavailable", "The sports provider's answer could not be read.")
    case "TimedOut":
      return fail("Timeout", "The sports provider did not answer in time.")
    case "Status":
      return fail("Unavailable", `The sports provider failed (HTTP ${failure.status}).`, failure.body)
    case "NotJson":
      // A server error's page (HTML) says the provider failed, not that it speaks another language.
      return failure.status !== undefined && failure.status >= 500
        ? fail("Unavailable", `The sports provider failed (HTTP ${failure.status}).`, failure.body)
        : fail("InvalidResponse", "The sports provider answered with something that is not JSON.", failure.body)
    case "Shape":
      return fail("InvalidResponse", "The sports provider answered with something that is not JSON.", failure.body)
  }
}

/**
 * A provider's errors with its secret (a token, a key) scrubbed from what they show: `scrub` for any value shown,
 * `fail` for an error of its own wording, `fromUpstream` for a failed call.
 */
export const providerFailures = (secret: string) => {
  const scrub = (value: unknown) => withoutSecrets(value, [secret])
  const fail = (reason: SportsProviderError["reason"], message: string, providerResponse?: unknown) =>
    new SportsProviderError({
      reason,
      message: String(scrub(message)),
      ...(providerResponse === undefined ? {} : { providerResponse: scrub(providerResponse) })
    })
  return { scrub, fail, fromUpstream: providerErrorOf(fail) }
}
