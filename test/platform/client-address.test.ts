import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Schema } from "effect"
import {
  AddressRanges,
  AddressRangesFromString,
  ClientAddress,
  clientAddressOf
} from "../../src/platform/ClientAddress.ts"

const ranges = (raw: string) => Schema.decodeUnknownSync(AddressRangesFromString)(raw)

describe("client address", () => {
  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For claims", () => {
    const none = new AddressRanges([])
    assert.strictEqual(clientAddressOf(none, "203.0.113.9", "1.2.3.4"), "203.0.113.9")
    assert.strictEqual(
      clientAddressOf(none, "::ffff:203.0.113.9", undefined),
      "203.0.113.9",
      "IPv4-mapped IPv6 is the IPv4 address"
    )
  })

  it("behind trusted proxies, is the first address from the right that no trusted proxy vouches for", () => {
    const trusted = ranges("10.0.0.0/8, 2001:db8::/32")
    // The client claims 1.2.3.4; the edge proxy appended the address it saw (198.51.100.7); an inner proxy appended the edge's.
    assert.strictEqual(clientAddressOf(trusted, "10.0.0.2", "1.2.3.4, 198.51.100.7, 10.0.0.1"), "198.51.100.7")
    assert.strictEqual(clientAddressOf(trusted, "::ffff:10.0.0.2", "198.51.100.7"), "198.51.100.7")
    assert.strictEqual(clientAddressOf(trusted, "2001:db8::1", "2001:db8::2, 2400:cb00::5"), "2400:cb00::5")
    assert.strictEqual(clientAddressOf(trusted, "10.0.0.2", undefined), "10.0.0.2", "no header: the proxy itself")
    assert.strictEqual(
      clientAddressOf(trusted, "10.0.0.2", "10.0.0.9, 10.0.0.1"),
      "10.0.0.9",
      "all trusted: the leftmost"
    )
    assert.strictEqual(
      clientAddressOf(trusted, "10.0.0.2", "garbage, 10.0.0.1"),
      "10.0.0.1",
      "unreadable hop: the last readable one"
    )
  })

  it("ignores X-Forwarded-For from a peer that is not a trusted proxy", () => {
    assert.strictEqual(clientAddressOf(ranges("10.0.0.0/8"), "198.51.100.7", "10.0.0.1"), "198.51.100.7")
  })

  it("reads TRUSTED_PROXIES strictly, naming a bad entry", () =>
    Effect.gen(function*() {
      const read = (value: string) =>
        ClientAddress.config.pipe(
          Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ TRUSTED_PROXIES: value })))
        )
      assert.deepStrictEqual((yield* read("10.0.0.0/8 , ::1")).entries, ["10.0.0.0/8", "::1"])
      assert.isTrue((yield* read("")).isEmpty)
      for (const bad of ["10.0.0.0/33", "example.com", "10.0.0.0/8/1", "::/129", "10.0.0.0/x"]) {
        const error = yield* Effect.flip(read(bad))
        assert.include(String(error), bad, bad)
      }
    }).pipe(Effect.runPromise))
})
