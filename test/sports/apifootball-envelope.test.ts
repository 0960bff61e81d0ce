/** API-Football's envelope (its errors in their three forms), its quota headers and its account, on worked examples. */
import { assert, describe, it } from "@effect/vitest"
import * as ApiFootball from "../../src/integrations/apifootball/ApiFootball.ts"

describe("API-Football envelope", () => {
  const envelope = (errors: unknown, rest: Record<string, unknown> = { results: 0, response: [] }) =>
    ApiFootball.readEnvelope({ get: "fixtures", parameters: [], errors, ...rest })

  it("a success: errors [] or {}, results and paging as numbers or texts, current page 0 allowed", () => {
    assert.deepStrictEqual(
      envelope([], { results: "2", paging: { current: "0", total: 1 }, response: [{ a: 1 }, { b: 2 }] }),
      { _tag: "Ok", results: 2, paging: { current: 0, total: 1 }, response: [{ a: 1 }, { b: 2 }] }
    )
    assert.deepStrictEqual(envelope({}, { results: 1, response: { requests: {} } }), {
      _tag: "Ok",
      results: 1,
      paging: undefined,
      response: { requests: {} }
    })
  })

  it("a failure as an object: by its keys, any other key a refused parameter", () => {
    const failed = envelope({
      token: "Error/Missing application key.",
      requests: "You have reached the request limit for the day",
      rateLimit: "Too many requests. You have exceeded the limit of requests per minute of your subscription.",
      plan: "Free plans do not have access to this season, try from 2022 to 2024.",
      bookmaker: "The bookmaker field must be an integer."
    })
    assert.deepStrictEqual(failed._tag === "Failed" ? failed.failures : failed, [
      { kind: "token", message: "Error/Missing application key." },
      { kind: "requests", message: "You have reached the request limit for the day" },
      {
        kind: "rateLimit",
        message: "Too many requests. You have exceeded the limit of requests per minute of your subscription."
      },
      { kind: "plan", message: "Free plans do not have access to this season, try from 2022 to 2024." },
      { kind: "parameter", parameter: "bookmaker", message: "The bookmaker field must be an integer." }
    ])
  })

  it("a failure as a list of messages: by their wording", () => {
    const kinds = (message: string) => {
      const failed = envelope([message])
      return failed._tag === "Failed" ? failed.failures : failed
    }
    assert.deepStrictEqual(kinds("You have reached the request limit for the day"), [
      { kind: "requests", message: "You have reached the request limit for the day" }
    ])
    assert.strictEqual((kinds("Too many requests.") as ReadonlyArray<ApiFootball.Failure>)[0].kind, "rateLimit")
    assert.strictEqual((kinds("Missing application key") as ReadonlyArray<ApiFootball.Failure>)[0].kind, "token")
    assert.strictEqual(
      (kinds("Free plans do not have access to this date") as ReadonlyArray<ApiFootball.Failure>)[0].kind,
      "plan"
    )
    assert.deepStrictEqual(kinds("The Season field is required."), [
      { kind: "parameter", message: "The Season field is required." }
    ])
  })

  it("a failure wins over the rest, whatever results and response say", () => {
    const failed = ApiFootball.readEnvelope({ errors: { token: "bad" }, results: "n/a" })
    assert.deepStrictEqual(failed, { _tag: "Failed", failures: [{ kind: "token", message: "bad" }] })
  })

  it("not an envelope: no errors, errors of another shape, a success without response, a wrong paging", () => {
    for (
      const raw of [
        null,
        "Too many requests",
        [],
        { message: "You are not subscribed to this API." },
        { errors: "bad", response: [] },
        { errors: [], results: 0 },
        { errors: [], results: "four", response: [] },
        { errors: [], results: 0, paging: { current: "one", total: 1 }, response: [] }
      ]
    ) {
      assert.deepStrictEqual(ApiFootball.readEnvelope(raw), { _tag: "Invalid" }, JSON.stringify(raw))
    }
  })

  it("a success without results counts its response", () => {
    const ok = ApiFootball.readEnvelope({ errors: [], response: [1, 2, 3] })
    assert.strictEqual(ok._tag === "Ok" ? ok.results : ok._tag, 3)
  })
})

describe("API-Football quota and account", () => {
  it("the day's and the minute's quota from the headers, whatever their case; others left out", () => {
    assert.deepStrictEqual(
      ApiFootball.quotaOf({
        "x-ratelimit-requests-limit": "100",
        "x-ratelimit-requests-remaining": "97",
        "X-RateLimit-Limit": "10",
        "x-ratelimit-remaining": "9",
        "content-type": "application/json"
      }),
      { dayLimit: 100, dayRemaining: 97, minuteLimit: 10, minuteRemaining: 9 }
    )
    assert.deepStrictEqual(
      ApiFootball.quotaOf({ "x-ratelimit-requests-limit": "7500", "x-ratelimit-remaining": "n/a" }),
      { dayLimit: 7500 }
    )
    assert.deepStrictEqual(ApiFootball.quotaOf({}), {})
  })

  it("the account of /status's response object; an error answer's [] is none", () => {
    const response = {
      account: { firstname: "A", lastname: "B", email: "a@b.c" },
      subscription: { plan: "Free", end: "2027-04-10T23:24:27+00:00", active: true },
      requests: { current: "12", limit_day: 100 }
    }
    assert.deepStrictEqual(ApiFootball.toAccount(response), { plan: "Free", active: true, dayUsed: 12, dayLimit: 100 })
    assert.deepStrictEqual(
      ApiFootball.toAccount({ ...response, subscription: { plan: null, end: null, active: false } })?.plan,
      null
    )
    assert.isUndefined(ApiFootball.toAccount([]))
  })
})
