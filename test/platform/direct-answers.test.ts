/**
 * The edge's direct answers (platform/DirectAnswers) are the contract's answers, byte for byte: the same request is
 * sent once as the edge answers it (an exact path, no query) and once through the router and HttpApi (the same path
 * with an empty query, `?`, which the direct answer never takes), and the two answers are compared whole: status,
 * headers (but Date, and the rate limit's remaining count and reset, which the later one moves) and body bytes. What a direct
 * answer declines (no token, an unknown one, two schemes, an inactive partner) goes the whole way, and
 * `http_direct_answers_total` says which were direct.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { Partners } from "../../src/partners/Partners.ts"
import { live } from "../support/live.ts"
import { parsePrometheusText } from "../support/PrometheusText.ts"
import { bearer, givenPartner, partnerKey, request, TestApp, textBody } from "../support/TestApp.ts"

const metricsToken = "metrics-secret-for-direct-answers"
const status = "/api/partner/v1/status"
const oddsRoute = "/api/partner/v1/sports/events/:eventId/odds"

/** An answer as it came: status, headers and the body's text, untouched. */
const exchange = (path: string, headers: Record<string, string>) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.setHeaders(headers)))
    return { status: response.status, headers: { ...response.headers }, text: yield* response.text }
  }).pipe(Effect.orDie)

/** How many answers the edge gave itself, on every route, as the metrics say. */
const directCount = Effect.map(request("GET", "/metrics", { headers: bearer(metricsToken) }), (scraped) => {
  const family = parsePrometheusText(textBody(scraped)).get("http_direct_answers_total")
  return family?.samples.reduce((sum, sample) => sum + sample.value, 0) ?? 0
})

/** How many the edge gave for one route. */
const directOn = (route: string) =>
  Effect.map(request("GET", "/metrics", { headers: bearer(metricsToken) }), (scraped) => {
    const family = parsePrometheusText(textBody(scraped)).get("http_direct_answers_total")
    return family?.samples.find((sample) => sample.labels.route === route)?.value ?? 0
  })

/**
 * The answer through the contract, then the edge's direct one, compared whole; the direct one counted or not, as
 * `direct` says. The contract's goes first: a token it looks up is then known here, as the edge needs.
 */
const bothWays = (headers: Record<string, string>, direct: boolean, path = status) =>
  Effect.gen(function*() {
    const viaContract = yield* exchange(`${path}?`, headers)
    const before = yield* directCount
    const viaEdge = yield* exchange(path, headers)
    assert.strictEqual(yield* directCount, before + (direct ? 1 : 0), direct ? "answered at the edge" : "declined")
    // The provider's answer ages between the two (Age, whole seconds): it is on both or neither.
    const {
      age: ageThen,
      date: _a,
      "ratelimit-remaining": remainingThen,
      "ratelimit-reset": resetThen,
      ...contractHeaders
    } = viaContract.headers
    const { age: ageNow, date: _b, "ratelimit-remaining": remainingNow, "ratelimit-reset": resetNow, ...edgeHeaders } =
      viaEdge.headers
    assert.strictEqual(ageNow === undefined, ageThen === undefined, "an Age on both or neither")
    assert.strictEqual(resetNow === undefined, resetThen === undefined, "a reset on both or neither")
    assert.deepStrictEqual(
      { status: viaEdge.status, headers: edgeHeaders, text: viaEdge.text },
      { status: viaContract.status, headers: contractHeaders, text: viaContract.text }
    )
    // Each takes one request of the allowance (the 429 below shows it), which refills meanwhile: both say it or neither.
    assert.strictEqual(remainingNow === undefined, remainingThen === undefined, "a remaining count on both or neither")
    return viaEdge
  })

layer(
  TestApp({
    observability: { metricsToken: Option.some(Redacted.make(metricsToken)) }
  }),
  live
)("direct answers", (it) => {
  it.effect("/status at the edge is the contract's answer, byte for byte, in each scheme and environment", () =>
    Effect.gen(function*() {
      const created = yield* givenPartner({ name: "Acme \"Bets\" ç", slug: "direct-acme", commissionPercent: 12.5 })
      const { test } = yield* (yield* Partners).rotateToken("direct-acme", "test")
        .pipe(Effect.map(({ token }) => ({ test: token })), Effect.orDie)
      const live = yield* bothWays(bearer(created.token), true)
      assert.strictEqual(live.status, 200)
      assert.include(live.text, "\"environment\":\"live\"")
      const sandbox = yield* bothWays(partnerKey(test), true)
      assert.include(sandbox.text, "\"environment\":\"test\"")
      assert.include(sandbox.text, "\"provider\":\"sandbox\"")
    }))

  it.effect("past the partner's limit, the edge's 429 is the contract's, with its Retry-After", () =>
    Effect.gen(function*() {
      // Two a minute: one comes back every 30 s, far longer than the test takes on any machine.
      const { token } = yield* givenPartner({ slug: "direct-busy", rateLimitPerMinute: 2 })
      yield* bothWays(bearer(token), true)
      const refused = yield* bothWays(bearer(token), true)
      assert.strictEqual(refused.status, 429)
      assert.isDefined(refused.headers["retry-after"])
      assert.strictEqual(JSON.parse(refused.text).success, false)
    }))

  it.effect("an event's odds at the edge are the contract's answer, and so is its 404", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ slug: "direct-odds" })
      const upcoming = JSON.parse(
        (yield* exchange("/api/partner/v1/sports/events/upcoming?sport_id=1", bearer(token))).text
      )
      // The last listed, the furthest off: its pre-match odds are kept a minute (one about to start only seconds).
      const eventId = String(upcoming.data.results.at(-1).event_id)
      const path = `/api/partner/v1/sports/events/${eventId}/odds`
      // The provider asked once (MISS), then both answers read what it kept (HIT).
      yield* exchange(`${path}?`, bearer(token))
      const before = yield* directOn(oddsRoute)
      const odds = yield* bothWays(bearer(token), true, path)
      assert.strictEqual(yield* directOn(oddsRoute), before + 1)
      assert.strictEqual(odds.status, 200)
      assert.strictEqual(odds.headers["x-cache"], "HIT")
      assert.isDefined(odds.headers["odds-format"])
      assert.isNotEmpty(JSON.parse(odds.text).data.markets)

      const unknown = yield* bothWays(bearer(token), true, "/api/partner/v1/sports/events/999999999/odds")
      assert.strictEqual(unknown.status, 404)
      // `/sports/events/live/odds` is the live event "odds" to the router: the edge leaves it to the router.
      yield* bothWays(bearer(token), false, "/api/partner/v1/sports/events/live/odds")
    }))

  it.effect("what the edge declines goes the whole way, and is answered as the contract says", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ slug: "direct-declined" })
      const missing = yield* bothWays({}, false)
      assert.strictEqual(JSON.parse(missing.text).message, "API key do parceiro nao informada.")
      const unknown = yield* bothWays(bearer(`pak_live_${"0".repeat(40)}`), false)
      assert.strictEqual(JSON.parse(unknown.text).message, "Parceiro invalido ou inativo.")
      // Known, but in another spelling of the scheme, or in both schemes: the contract decides.
      yield* exchange(status, bearer(token))
      assert.strictEqual((yield* bothWays({ authorization: `bearer ${token}` }, false)).status, 200)
      assert.strictEqual((yield* bothWays({ ...bearer(token), ...partnerKey("pak_other") }, false)).status, 200)
      yield* (yield* Partners).setStatus("direct-declined", "inactive")
      const inactive = yield* bothWays(bearer(token), false)
      assert.strictEqual(inactive.status, 401)
    }))
})
