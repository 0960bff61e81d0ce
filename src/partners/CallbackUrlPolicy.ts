import { Context, Effect, Layer, Schema } from "effect"
import type * as dns from "node:dns"
import * as net from "node:net"
import { familyOf, makeHostResolver } from "./HostResolver.ts"
import { PartnersConfig } from "./PartnersConfig.ts"

/** A callback URL this service will not call. */
export class UnsafeCallbackUrl extends Schema.TaggedError<UnsafeCallbackUrl>()("UnsafeCallbackUrl", {
  message: Schema.String
}) {}

/**
 * Addresses a partner's callback_url must never reach: this host, private
 * networks, link-local (cloud metadata at 169.254.169.254 among them),
 * carrier-grade NAT, documentation, multicast and reserved ranges.
 */
const blocked = (() => {
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
  for (
    const [prefix, bits] of [
      ["::", 128],
      ["::1", 128],
      ["64:ff9b::", 96],
      ["100::", 64],
      ["2001::", 23],
      ["2001:db8::", 32],
      ["fc00::", 7],
      ["fe80::", 10],
      ["ff00::", 8]
    ] as const
  ) list.addSubnet(prefix, bits, "ipv6")
  return list
})()

/** Whether an IP address is one a callback must not reach (an IPv4 address mapped into IPv6 is judged as IPv4). */
export const isBlockedAddress = (address: string): boolean => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped !== null) return blocked.check(mapped[1], "ipv4")
  const family = net.isIP(address)
  return family === 0 || blocked.check(address, family === 4 ? "ipv4" : "ipv6")
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, "")

/** Callback URLs that are the service's own (the sandbox's demo partner wallet): exempt from the policy. */
export const ExemptCallbackUrls = Context.Reference<ReadonlySet<string>>("partner-api/partners/ExemptCallbackUrls", {
  defaultValue: () => new Set()
})

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | Array<dns.LookupAddress>, family?: number) => void

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
          if (url.protocol !== "https:" && url.protocol !== "http:") return yield* refuse("must be an http:// or https:// URL")
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
            return yield* refuse(`must not resolve to a private, loopback, link-local or reserved address (${host} is ${bad.address})`)
          }
        })

      const lookup: net.LookupFunction = (hostname, options, callback) => {
        const done = callback as unknown as LookupCallback
        // Off libuv's thread pool (see HostResolver), so a burst of work there cannot stall a wallet call.
        resolver.resolveWith(hostname, familyOf(options), (error, addresses) => {
          if (error !== null) return done(error, [])
          const bad = allowPrivate ? undefined : addresses.find((entry) => isBlockedAddress(entry.address))
          if (bad !== undefined) {
            const refusal: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${bad.address}, which callbacks may not reach`)
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
