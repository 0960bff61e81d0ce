/**
 * Where a callback may go, judged by address alone (no DNS): IPv4 outside the
 * private and reserved ranges, and IPv6 that is global unicast; IPv6 forms
 * that carry an IPv4 address are judged by it or refused.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { CallbackUrlPolicy, isBlockedAddress } from "../../src/partners/CallbackUrlPolicy.ts"
import { PartnersConfig } from "../../src/partners/PartnersConfig.ts"
import { testPartnersConfig } from "../support/TestApp.ts"

const refused = [
  // IPv4 ranges, plain and mapped into IPv6 in either spelling.
  "127.0.0.1",
  "10.1.2.3",
  "169.254.169.254",
  "::ffff:127.0.0.1",
  "::ffff:7f00:1",
  "::ffff:a9fe:a9fe",
  // The unspecified and loopback addresses, and IPv4-compatible ::/96 (deprecated), whatever is inside.
  "::",
  "::1",
  "::127.0.0.1",
  "::8.8.8.8",
  "::808:808",
  // IPv4-translated ::ffff:0:0:0/96 (SIIT), whatever is inside.
  "::ffff:0:8.8.8.8",
  "::ffff:0:808:808",
  "::ffff:0:7f00:1",
  // 6to4 with a private IPv4 inside; NAT64 with a private one inside; local-use NAT64 (64:ff9b:1::/48).
  "2002:c0a8:101::1",
  "2002:7f00:1::",
  "64:ff9b::10.0.0.1",
  "64:ff9b::a9fe:a9fe",
  "64:ff9b:1::8.8.8.8",
  "64:ff9b:1:ffff::1",
  // Outside 2000::/3: unique local, link-local (with a zone too), multicast, discard-only, reserved.
  "fd00:ec2::254",
  "fc00::1",
  "fe80::1",
  "fe80::1%eth0",
  "ff02::1",
  "100::1",
  "4000::1",
  "1::",
  "e000::1",
  // Special blocks inside 2000::/3: Teredo and the IETF's, documentation.
  "2001::1",
  "2001:0:4136:e378::1",
  "2001:2::1",
  "2001:10::1",
  "2001:1ff:ffff::1",
  "2001:db8::1",
  "3fff::1",
  "3fff:fff::1",
  // Not an address.
  "example.com",
  ""
]

const allowed = [
  "8.8.8.8",
  "93.184.215.14",
  "::ffff:8.8.8.8",
  "::ffff:808:808",
  "2606:4700:4700::1111",
  "2a00:1450:4001:81b::200e",
  "2001:200::1",
  "2400:cb00::1",
  // 6to4 and NAT64 carrying a public IPv4 address.
  "2002:808:808::1",
  "64:ff9b::8.8.8.8",
  "64:ff9b::808:808"
]

describe("callback addresses", () => {
  it("refuses every address that is not public IPv4 or global unicast IPv6", () => {
    for (const address of refused) assert.isTrue(isBlockedAddress(address), address)
  })

  it("allows public IPv4, global unicast IPv6, and IPv6 forms of a public IPv4 address", () => {
    for (const address of allowed) assert.isFalse(isBlockedAddress(address), address)
  })

  it.effect("an operator's callback URL naming such an address is refused, naming it", () =>
    Effect.gen(function*() {
      const policy = yield* CallbackUrlPolicy
      for (
        const host of [
          "[::ffff:0:7f00:1]",
          "[::127.0.0.1]",
          "[2002:c0a8:101::1]",
          "[64:ff9b:1::a00:1]",
          "[2001:db8::1]"
        ]
      ) {
        const exit = yield* Effect.exit(policy.check(`https://${host}/wallet`))
        assert.isTrue(Exit.isFailure(exit), host)
        assert.match(String(exit), /private, loopback, link-local or reserved address/, host)
      }
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(policy.check("https://[2606:4700:4700::1111]/wallet"))))
      // A host name that resolves to such an address: refused, without saying what it resolves to (that would map
      // the service's own network for whoever types names); the detail is the log's.
      const named = yield* Effect.flip(policy.check("https://localhost/wallet"))
      assert.strictEqual(named.message, "must not resolve to a private, loopback, link-local or reserved address")
    }).pipe(
      Effect.provide(CallbackUrlPolicy.layer.pipe(
        Layer.provide(Layer.succeed(PartnersConfig, testPartnersConfig({ callbackAllowPrivate: false })))
      ))
    ))
})
