import { assert, describe, it } from "@effect/vitest"
import { undeliveredCause } from "../../src/domain/UndeliveredCallback.ts"

/** What the sandbox game page says when a bet's callback got no usable answer, from what the ledger kept. */
describe("the cause of a callback that could not be delivered, in words", () => {
  const url = "http://127.0.0.1:9000/wallet?key=s3cret"

  it("a URL the policy refuses names PARTNER_CALLBACK_ALLOW_PRIVATE, with the URL masked", () => {
    const said = undeliveredCause(
      url,
      "The callback URL must be https:// (plain http:// needs PARTNER_CALLBACK_ALLOW_PRIVATE=true).",
      false
    )
    assert.include(said, "Your wallet at http://127.0.0.1:9000/wallet?key=*** could not be called")
    assert.include(said, "unless PARTNER_CALLBACK_ALLOW_PRIVATE=true is set on the service")
    assert.notInclude(said, "s3cret")
  })

  it("a host resolving to a private address is the policy too", () => {
    const said = undeliveredCause(
      "https://wallet.internal/cb",
      "The partner could not be reached: wallet.internal resolves to a private, loopback, link-local or reserved " +
        "address, which callbacks may not reach (Transport error)",
      false
    )
    assert.include(said, "PARTNER_CALLBACK_ALLOW_PRIVATE=true")
  })

  it("DNS, a refused connection, a time-out, an error status and an unreadable answer each say so", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["The partner could not be reached: getaddrinfo ENOTFOUND nowhere.example (Transport error)", "does not resolve"],
      [
        `The partner could not be reached: connect ECONNREFUSED 127.0.0.1:9000 (Transport error (POST ${url}))`,
        "connection was refused"
      ],
      ["The partner did not answer within 5 seconds.", "did not answer in time"],
      ["The partner answered HTTP 503: \"down\"", "error status"],
      ["The partner's answer is not {\"balance\": <amount>}: \"ok\"", "could not be read"]
    ]
    for (const [lastError, words] of cases) {
      const said = undeliveredCause(url, lastError, true)
      assert.include(said, words, lastError)
      // The URL inside the socket's message is masked as well.
      assert.notInclude(said, "s3cret", lastError)
    }
  })
})
