import { type Context, Effect, Exit, Metric } from "effect"

/**
 * Every metric the service exports, in one place: each area records through
 * these definitions (or the helpers below), so names, types, units and help
 * texts are defined once. Served as Prometheus text at GET /metrics
 * (MetricsRoute.ts). Durations are in seconds and sizes in plain counts, as
 * Prometheus names them; label values come from small fixed sets (route
 * patterns, not raw paths; partner slugs), so series stay few.
 */

/** Latency buckets of an HTTP answer, in seconds (5 ms to 10 s). */
const requestSeconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** Buckets of a background refresh, in seconds (100 ms to 10 minutes). */
const refreshSeconds = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600]

/**
 * `http_requests_total{route, method, status, partner, environment}`: answers, by route pattern; `partner` and
 * `environment` (live, test) are `none` before auth.
 */
export const httpRequests = Metric.counter("http_requests_total", {
  description:
    "HTTP requests answered, by route pattern (unmatched for unknown routes), method, status, partner slug and the environment of its token (none when unauthenticated).",
  incremental: true
})

/** `http_request_duration_seconds{route, method}`: time from the request's arrival to its answer. */
export const httpRequestDuration = Metric.histogram("http_request_duration_seconds", {
  description: "Time to answer an HTTP request, in seconds, by route pattern and method.",
  boundaries: requestSeconds
})

/**
 * `http_direct_answers_total{route}`: answers the edge step gave itself (DirectAnswers), by route pattern; the rest of
 * that route's `http_requests_total` went through the router and the contract in full.
 */
export const httpDirectAnswers = Metric.counter("http_direct_answers_total", {
  description:
    "HTTP answers given at the edge by the endpoint's own handler, without the router and HttpApi (the hottest reads, for a partner this instance knows), by route pattern.",
  incremental: true
})

/** `partner_rate_limit_refusals_total{partner, environment}`: partner API requests refused with 429. */
export const rateLimitRefusals = Metric.counter("partner_rate_limit_refusals_total", {
  description:
    "Partner API requests refused with 429 because the partner was over its rate limit in an environment, by partner slug and environment (live, test).",
  incremental: true
})

/** `wallet_decisions_total{call, outcome, currency}`: the aggregator's wallet calls by what they were answered. */
export const walletDecisions = Metric.counter("wallet_decisions_total", {
  description:
    "Wallet calls from the aggregator, by call (Balance, WinBet, Refund; unread when refused before it was read), answer (OK, INSUFFICIENT_USER_FUNDS, INVALID_USER, ROUND_REFUNDED, DUPLICATE_TRANSACTION, INVALID_REQUEST, INVALID_AGENT) and currency (the player's currency code; none when the call named no player of the environment or was not read).",
  incremental: true
})

/** `callback_outbox_pending`: notifications waiting for delivery, read from the outbox at each scrape. */
export const outboxPending = Metric.gauge("callback_outbox_pending", {
  description: "Partner notifications (win, refund, rollback) not yet delivered and still being retried."
})

/** `callback_outbox_oldest_pending_age_seconds`: age of the oldest of them (0 when none). */
export const outboxOldestPendingAge = Metric.gauge("callback_outbox_oldest_pending_age_seconds", {
  description: "Age in seconds of the oldest partner notification not yet delivered (0 when there is none)."
})

/** `callback_outbox_failed`: notifications whose attempts ran out, waiting for an operator. */
export const outboxFailed = Metric.gauge("callback_outbox_failed", {
  description: "Partner notifications whose delivery attempts ran out (status failed), waiting for an operator."
})

/**
 * `wallet_stuck_items{kind, environment}`: what the wallet could not finish on its own now (rounds open too long,
 * bets pending past their time-out, notifications out of attempts), read by the scrapes.
 */
export const walletStuckItems = Metric.gauge("wallet_stuck_items", {
  description:
    "Stuck wallet items now, by kind (round: open longer than WALLET_STUCK_ROUND_AFTER; bet: pending past its time-out and recovery; notification: out of delivery attempts; amount: an aggregator's call finer than the player's currency, not yet resent readable, for 7 days at most) and environment (live, test); up to 1000 of each kind are counted."
})

/** `refresh_duration_seconds{refresh, outcome}`: catalog_full, catalog_live, casino_sync runs. */
export const refreshDuration = Metric.histogram("refresh_duration_seconds", {
  description:
    "Duration of each refresh of a local copy, in seconds, by refresh (catalog_full, catalog_live, casino_sync) and outcome (success, failure).",
  boundaries: refreshSeconds
})

/** `sports_provider_calls_total{operation, outcome}`: calls that reached the sports provider. */
export const sportsProviderCalls = Metric.counter("sports_provider_calls_total", {
  description: "Calls to the sports provider upstream, by operation and outcome.",
  incremental: true
})

/** `sports_provider_cache_total{result="hit"|"miss"}`: provider answers served from the cache or fetched. */
export const sportsProviderCache = Metric.counter("sports_provider_cache_total", {
  description: "Sports provider reads answered from the cache (hit) or sent upstream (miss).",
  incremental: true
})

/** `sports_provider_quota_remaining`: upstream calls left in the provider's current quota window. */
export const sportsProviderQuotaRemaining = Metric.gauge("sports_provider_quota_remaining", {
  description: "Calls to the sports provider left in the current quota window."
})

/** `sports_stream_open{environment}`: change streams open on this instance. */
export const sportsStreamsOpen = Metric.gauge("sports_stream_open", {
  description:
    "Live sports change streams (GET /sports/stream) open on this instance, by the environment of their tokens."
})

/** `sports_stream_events_sent_total`: changes queued to streams (each change counted once per stream it goes to). */
export const sportsStreamEventsSent = Metric.counter("sports_stream_events_sent_total", {
  description: "Changes sent on live sports change streams, counted once per stream they went to.",
  incremental: true
})

/** `sports_stream_resets_total{reason}`: reset events sent (expired, unknown_position, slow_reader). */
export const sportsStreamResets = Metric.counter("sports_stream_resets_total", {
  description: "Reset events sent on live sports change streams, by reason (expired, unknown_position, slow_reader).",
  incremental: true
})

/** `sports_stream_slow_clients_dropped_total`: streams closed because their client read too slowly. */
export const sportsStreamSlowClientsDropped = Metric.counter("sports_stream_slow_clients_dropped_total", {
  description: "Live sports change streams closed (after a reset) because their client read too slowly.",
  incremental: true
})

/** `sports_stream_buffered_bytes`: what this instance's streams hold for their clients, not yet taken by the sockets. */
export const sportsStreamBufferedBytes = Metric.gauge("sports_stream_buffered_bytes", {
  description:
    "Bytes this instance's live sports change streams hold for clients that have not taken them yet (at most STREAM_CLIENT_BUFFER each, plus one batch)."
})

/**
 * Series of a metric by their label values (in the order of `labels`), made
 * once: a tagged metric keeps its series key, so recording on the hot path is
 * a string key and a map look-up.
 */
const seriesOf = <I, S>(metric: Metric.Metric<I, S>, ...labels: ReadonlyArray<string>) => {
  const made = new Map<string, Metric.Metric<I, S>>()
  return (...values: ReadonlyArray<string>): Metric.Metric<I, S> => {
    const key = values.length === 1 ? values[0] : values.join("\u0000")
    let series = made.get(key)
    if (series === undefined) {
      series = Metric.withAttributes(metric, Object.fromEntries(labels.map((label, i) => [label, values[i]])))
      made.set(key, series)
    }
    return series
  }
}

const requestSeries = seriesOf(httpRequests, "route", "method", "status", "partner", "environment")
const durationSeries = seriesOf(httpRequestDuration, "route", "method")
/** Both series of one kind of answer, found with one key: a request records into both. */
const answeredSeries = new Map<
  string,
  { readonly requests: Metric.Metric<number, unknown>; readonly duration: Metric.Metric<number, unknown> }
>()
const refusalSeries = seriesOf(rateLimitRefusals, "partner", "environment")
const walletSeries = seriesOf(walletDecisions, "call", "outcome", "currency")
const refreshSeries = seriesOf(refreshDuration, "refresh", "outcome")
const providerCallSeries = seriesOf(sportsProviderCalls, "operation", "outcome")
const providerCacheSeries = seriesOf(sportsProviderCache, "result")
const stuckSeries = seriesOf(walletStuckItems, "kind", "environment")
const streamsOpenSeries = seriesOf(sportsStreamsOpen, "environment")
const streamResetSeries = seriesOf(sportsStreamResets, "reason")

/** One answered HTTP request, recorded at once (on every request's path, by the edge step: both series in one step). */
export const recordRequest = (request: {
  readonly route: string
  readonly method: string
  readonly status: number
  readonly partner: string
  readonly environment: string
  readonly seconds: number
}, context: Context.Context<never>): void => {
  const key =
    `${request.route}\u0000${request.method}\u0000${request.status}\u0000${request.partner}\u0000${request.environment}`
  let series = answeredSeries.get(key)
  if (series === undefined) {
    series = {
      requests: requestSeries(
        request.route,
        request.method,
        String(request.status),
        request.partner,
        request.environment
      ),
      duration: durationSeries(request.route, request.method)
    }
    answeredSeries.set(key, series)
  }
  series.requests.updateUnsafe(1, context)
  series.duration.updateUnsafe(request.seconds, context)
}

const directSeries = seriesOf(httpDirectAnswers, "route")

/** One answer the edge step gave itself (DirectAnswers), for `route`. */
export const recordDirectAnswer = (route: string, context: Context.Context<never>): void =>
  directSeries(route).updateUnsafe(1, context)

/** A partner API request refused for the partner's rate limit in an environment. */
export const recordRateLimitRefusal = (partner: string, environment: string) =>
  Metric.update(refusalSeries(partner, environment), 1)

/** The `currency` of a wallet decision without a player: an unknown user code, a call refused before it was read. */
export const noCurrency = "none"

/**
 * A wallet call's answer; an empty `msg` is the protocol's success, counted as `OK`. `currency` is the player's
 * currency code (a code this service knows, so the series stay bounded), or `noCurrency`.
 */
export const recordWalletDecision = (call: string, msg: string, currency: string) =>
  Metric.update(walletSeries(call, msg === "" ? "OK" : msg, currency), 1)

/** A sports provider call that reached the upstream: `outcome` is `success` or why it failed. */
export const recordProviderCall = (operation: string, outcome: string) =>
  Metric.update(providerCallSeries(operation, outcome), 1)

/**
 * Counts each call of `call` into `sports_provider_calls_total{operation}`: outcome `success`, or the
 * error's `reason` (Timeout, RateLimited, ...) when it has one, else `failure`.
 */
export const countedProviderCall =
  (operation: string) => <A, E, R>(call: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.onExit(call, (exit) => {
      if (Exit.isSuccess(exit)) return recordProviderCall(operation, "success")
      if (Exit.hasInterrupts(exit)) return Effect.void
      const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
      const reason = error === undefined
        ? undefined
        : (error as { readonly error: { readonly reason?: unknown } }).error?.reason
      return recordProviderCall(operation, typeof reason === "string" ? reason : "failure")
    })

/** A provider read served from the cache (`hit`), sent upstream (`miss`), or the last answer kept (`stale`). */
export const recordProviderCache = (result: "hit" | "miss" | "stale") => Metric.update(providerCacheSeries(result), 1)

/** What is left of the provider's whole hourly quota after a call took its token. */
export const recordProviderQuotaRemaining = (remaining: number) =>
  Metric.update(sportsProviderQuotaRemaining, Math.max(0, Math.floor(remaining)))

/** How many items of a kind are stuck in an environment now. */
export const recordStuckItems = (kind: string, environment: string, count: number) =>
  Metric.update(stuckSeries(kind, environment), count)

/** The refreshes `refresh_duration_seconds` tells apart. */
export type RefreshName = "catalog_full" | "catalog_live" | "casino_sync"

/** Times each run of a refresh into `refresh_duration_seconds`, by its outcome (an interruption is not a run). */
export const timedRefresh = (refresh: RefreshName) => <A, E, R>(run: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const startedAt = performance.now()
    return Effect.onExit(run, (exit) =>
      Exit.hasInterrupts(exit) ? Effect.void : Metric.update(
        refreshSeries(refresh, Exit.isSuccess(exit) ? "success" : "failure"),
        (performance.now() - startedAt) / 1000
      ))
  })

/** Change streams now open on this instance in an environment. */
export const recordStreamsOpen = (environment: string, open: number) =>
  Metric.update(streamsOpenSeries(environment), open)

/** A reset event sent on a change stream. */
export const recordStreamReset = (reason: string) => Metric.update(streamResetSeries(reason), 1)
