import { Context, Effect, Layer, Schema } from "effect"
import type * as dns from "node:dns"
import * as net from "node:net"
import { ipv6Words } from "../domain/IpAddress.ts"
import { familyOf, makeHostResolver } from "./HostResolver.ts"
import { PartnersConfig } from "./PartnersConfig.ts"

/** A callback URL this service will not call. */
export class UnsafeCallbackUrl extends Schema.TaggedError<UnsafeCallbackUrl>()("UnsafeCallbackUrl", {
  message: Schema.String
}) {}

/**
 * IPv4 addresses a partner's callback_url must never reach: this host,
 * private networks, link-local (cloud metadata at 169.254.169.254 among
 * them), carrier-grade NAT, documentation, benchmarking, multicast and
 * reserved ranges.
 */
const blockedIpv4 = (() => {
  const list = new net.BlockList()
  for (
    const [prefix, bits] of [
      ["0.0.0.0", 8],
      ["10.0.0.0", 8],
      ["100.64.0.0", 10],
      ["127.0.0.0", 8],
      ["169.254.0.0", 16],
      ["172.16.0.0", 12],
      ["192.0.0.0", 24],
      ["192.0.2.0", 24],
      ["192.88.99.0", 24],
      ["192.168.0.0", 16],
      ["198.18.0.0", 15],
      ["198.51.100.0", 24],
      ["203.0.113.0", 24],
      ["224.0.0.0", 4],
      ["240.0.0.0", 4]
    ] as const
  ) list.addSubnet(prefix, bits, "ipv4")
  return list
})()

/**
 * IPv6: global unicast (2000::/3) only, less its special-purpose blocks:
 * IETF protocol assignments (2001::/23: Teredo, benchmarking, ORCHID),
 * documentation (2001:db8::/32, 3fff::/20). 6to4 (2002::/16) is judged by
 * the IPv4 address inside it, before this list.
 */
const blockedGlobalIpv6 = (() => {
  const list = new net.BlockList()
  for (const [prefix, bits] of [["2001::", 23], ["2001:db8::", 32], ["3fff::", 20]] as const) {
    list.addSubnet(prefix, bits, "ipv6")
  }
  return list
})()

const ipv4Of = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`

const isBlockedIpv6 = (address: string): boolean => {
  const words = ipv6Words(address)
  if (words === undefined) return true
  const zeroes = (from: number, to: number) => words.slice(from, to).every((word) => word === 0)
  // IPv4-mapped (::ffff:a.b.c.d) and the well-known NAT64 prefix (64:ff9b::/96, DNS64's): the IPv4 address decides.
  if (zeroes(0, 5) && words[5] === 0xffff) return blockedIpv4.check(ipv4Of(words[6], words[7]), "ipv4")
  if (words[0] === 0x64 && words[1] === 0xff9b && zeroes(2, 6)) {
    return blockedIpv4.check(ipv4Of(words[6], words[7]), "ipv4")
  }
  // 6to4: 2002:AABB:CCDD::/48 carries a.b.c.d.
  if (words[0] === 0x2002) return blockedIpv4.check(ipv4Of(words[1], words[2]), "ipv4")
  // Everything outside 2000::/3 (::, ::1, IPv4-compatible ::/96, ::ffff:0:0:0/96, 64:ff9b:1::/48, ULA, link-local, multicast).
  if ((words[0] & 0xe000) !== 0x2000) return true
  return blockedGlobalIpv6.check(address, "ipv6")
}

/**
 * Whether an IP address is one a callback must not reach: a blocked IPv4
 * range, or IPv6 that is not global unicast. IPv6 forms that carry an IPv4
 * address (mapped, NAT64, 6to4) are judged by it; the other forms are
 * refused. Text that is no IP address is refused too.
 */
export const isBlockedAddress = (address: string): boolean => {
  switch (net.isIP(address)) {
    case 4:
      return blockedIpv4.check(address, "ipv4")
    case 6:
      return isBlockedIpv6(address)
    default:
      return true
  }
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, "")

/** Callback URLs that are the service's own (the sandbox's demo partner wallet): exempt from the policy. */
export const ExemptCallbackUrls = Context.Reference<ReadonlySet<string>>("partner-api/partners/ExemptCallbackUrls", {
  defaultValue: () => new Set()
})

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | Array<dns.LookupAddress>,
  family?: number
) => void

/**
 * Where partner callbacks may go. A callback_url must be https:// and its
 * host must resolve only to public addresses, checked when an operator sets
 * it and again on every connection (a DNS answer can change), unless
 * PARTNER_CALLBACK_ALLOW_PRIVATE is on. The service's own sandbox wallet is
 * exempt.
 */
export class CallbackUrlPolicy extends Context.Service<CallbackUrlPolicy, {
  readonly allowPrivate: boolean
  isExempt(url: string): boolean
  /** The URL's form and, unless it is an address already, every address its host resolves to now. */
  check(url: string): Effect.Effect<void, UnsafeCallbackUrl>
  /** The checks that need no DNS, made before each send; connections then go through `lookup`. */
  checkBeforeSend(url: string): Effect.Effect<void, UnsafeCallbackUrl>
  /** A DNS look-up for node:http agents that refuses connections to blocked addresses. */
  readonly lookup: net.LookupFunction
}>()("partner-api/partners/CallbackUrlPolicy") {
  static readonly layer = Layer.effect(
    CallbackUrlPolicy,
    Effect.gen(function*() {
      const { callbackAllowPrivate: allowPrivate } = yield* PartnersConfig
      const exempt = yield* ExemptCallbackUrls
      const isExempt = (url: string) => exempt.has(url)
      const refuse = (message: string) => Effect.fail(new UnsafeCallbackUrl({ message }))
      const resolver = makeHostResolver()

      const checkForm = Effect.fn("CallbackUrlPolicy.checkForm")(function*(raw: string) {
        if (isExempt(raw)) return undefined
        const url = URL.canParse(raw) ? new URL(raw) : undefined
        if (url === undefined) return yield* refuse("must be an absolute http:// or https:// URL")
        if (url.protocol !== "https:" && url.protocol !== "http:") {
          return yield* refuse("must be an http:// or https:// URL")
        }
        if (allowPrivate) return undefined
        if (url.protocol !== "https:") {
          return yield* refuse("must be https:// (plain http:// needs PARTNER_CALLBACK_ALLOW_PRIVATE=true)")
        }
        if (net.isIP(hostOf(url)) !== 0 && isBlockedAddress(hostOf(url))) {
          return yield* refuse(`must not point at a private, loopback, link-local or reserved address (${hostOf(url)})`)
        }
        return url
      })

      const check = Effect.fn("CallbackUrlPolicy.check")(function*(raw: string) {
        const url = yield* checkForm(raw)
        if (url === undefined || net.isIP(hostOf(url)) !== 0) return
        const host = hostOf(url)
        const addresses = yield* Effect.tryPromise(() => resolver.resolve(host, 0)).pipe(
          Effect.mapError(() => new UnsafeCallbackUrl({ message: `must have a host that resolves (${host} does not)` }))
        )
        const bad = addresses.find((entry) => isBlockedAddress(entry.address))
        if (bad !== undefined) {
          // Not said to whoever typed the name (a portal user could map the service's network by it): the log's.
          yield* Effect.logWarning("A callback URL was refused: its host resolves to a blocked address").pipe(
            Effect.annotateLogs({ host, address: bad.address })
          )
          return yield* refuse("must not resolve to a private, loopback, link-local or reserved address")
        }
      })

      const lookup: net.LookupFunction = (hostname, options, callback) => {
        const done = callback as unknown as LookupCallback
        // Off libuv's thread pool (see HostResolver), so a burst of work there cannot stall a wallet call.
        resolver.resolveWith(hostname, familyOf(options), (error, addresses) => {
          if (error !== null) return done(error, [])
          const bad = allowPrivate ? undefined : addresses.find((entry) => isBlockedAddress(entry.address))
          if (bad !== undefined) {
            // The refusal becomes the delivery's last_error, which the partner reads: the address is not in it.
            const refusal: NodeJS.ErrnoException = new Error(
              `${hostname} resolves to a private, loopback, link-local or reserved address, which callbacks may not reach`
            )
            refusal.code = "EADDRNOTALLOWED"
            return done(refusal, [])
          }
          if (options.all === true) return done(null, addresses)
          done(null, addresses[0].address, addresses[0].family)
        })
      }

      return CallbackUrlPolicy.of({
        allowPrivate,
        isExempt,
        check,
        checkBeforeSend: (url) => Effect.asVoid(checkForm(url)),
        lookup
      })
    })
  )
}
