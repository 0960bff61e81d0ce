import { Config, Context, Effect, Layer, Option, Schema, SchemaGetter } from "effect"
import type { HttpServerRequest } from "effect/http"
import * as net from "node:net"
import { ipv6Words } from "../domain/IpAddress.ts"

/** An IPv4 address mapped into IPv6 (`::ffff:10.0.0.1`, as a dual-stack socket reports it) is the IPv4 address. */
export const normalizeAddress = (address: string): string => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  return mapped === null ? address : mapped[1]
}

/**
 * What a per-client limit counts by: an IPv4 address, or the /64 of an IPv6 one (one subscriber's
 * network, whose addresses they can change at will).
 */
export const clientGroup = (address: string): string => {
  const normalized = normalizeAddress(address)
  if (net.isIP(normalized) !== 6) return normalized
  const words = ipv6Words(normalized)
  return words === undefined ? normalized : `${words.slice(0, 4).map((word) => word.toString(16)).join(":")}::/64`
}

/**
 * A set of addresses and networks (`10.0.0.0/8, 192.0.2.7, 2001:db8::/32`), as operators write them in a
 * setting: each entry an IPv4 or IPv6 address, with a prefix length or alone (one address).
 */
export class AddressRanges {
  private readonly list = new net.BlockList()
  readonly entries: ReadonlyArray<string>
  constructor(entries: ReadonlyArray<string>) {
    this.entries = entries
    for (const entry of entries) {
      const [address, bits] = entry.split("/")
      const family = net.isIP(address) === 4 ? "ipv4" : "ipv6"
      if (bits === undefined) this.list.addAddress(address, family)
      else this.list.addSubnet(address, Number(bits), family)
    }
  }
  get isEmpty() {
    return this.entries.length === 0
  }
  /** Whether `address` (IPv4, IPv6 or IPv4-mapped IPv6) is in the set; text that is no address is not. */
  has(address: string): boolean {
    const normalized = normalizeAddress(address)
    const family = net.isIP(normalized)
    return family !== 0 && this.list.check(normalized, family === 4 ? "ipv4" : "ipv6")
  }
}

const entryProblem = (entry: string): string | undefined => {
  const [address, bits, extra] = entry.split("/")
  const family = net.isIP(address)
  if (family === 0 || extra !== undefined) {
    return `"${entry}" is not an IP address or network (such as 10.0.0.0/8 or 2001:db8::/32)`
  }
  if (bits === undefined) return undefined
  const max = family === 4 ? 32 : 128
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max
    ? undefined
    : `"${entry}" has a prefix length outside 0 to ${max}`
}

const entriesOf = (raw: string) => raw.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")

/** `AddressRanges` from a comma-separated setting; an empty setting is the empty set; a bad entry is named. */
export const AddressRangesFromString = Schema.String.check(
  Schema.makeFilter((raw: string) => entriesOf(raw).map(entryProblem).find((problem) => problem !== undefined))
).pipe(
  Schema.decodeTo(Schema.instanceOf(AddressRanges), {
    decode: SchemaGetter.transform((raw: string) => new AddressRanges(entriesOf(raw))),
    encode: SchemaGetter.transform((ranges: AddressRanges) => ranges.entries.join(","))
  })
)

/** The client behind `peer` (see ClientAddress), from the X-Forwarded-For header the peer sent, if any. */
export const clientAddressOf = (
  trustedProxies: AddressRanges,
  peer: string,
  forwardedFor: string | undefined
): string => {
  let client = normalizeAddress(peer)
  if (forwardedFor === undefined || trustedProxies.isEmpty || !trustedProxies.has(client)) return client
  const hops = forwardedFor.split(",").map((hop) => normalizeAddress(hop.trim()))
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = hops[index]
    if (net.isIP(hop) === 0) break // not an address: nothing at or left of it can be read
    client = hop
    if (!trustedProxies.has(hop)) break
  }
  return client
}

/**
 * Who a request comes from, for throttles and allowlists. The socket's peer, unless that peer is one of
 * TRUSTED_PROXIES: then X-Forwarded-For is read from the right (each proxy appends the address it was
 * reached from), passing over trusted proxies, and the first address no trusted proxy vouches for is the
 * client. Entries left of it are the client's own claim and are never believed. With no trusted proxies
 * (the default) the header is ignored: anyone can send one.
 */
export class ClientAddress extends Context.Service<ClientAddress, {
  readonly trustedProxies: AddressRanges
  of(request: HttpServerRequest.HttpServerRequest): string
}>()("partner-api/platform/ClientAddress") {
  static readonly make = (trustedProxies: AddressRanges) =>
    ClientAddress.of({
      trustedProxies,
      of: (request) =>
        clientAddressOf(
          trustedProxies,
          Option.getOrElse(request.remoteAddress, () => "unknown"),
          request.headers["x-forwarded-for"]
        )
    })

  static readonly config = Config.schema(AddressRangesFromString, "TRUSTED_PROXIES").pipe(
    Config.withDefault(new AddressRanges([]))
  )

  static readonly layer = Layer.effect(ClientAddress, Effect.map(ClientAddress.config, ClientAddress.make))
}
