import * as dns from "node:dns"
import { readFileSync } from "node:fs"
import * as net from "node:net"

/**
 * Where a partner's callback host is, found without libuv's thread pool.
 *
 * dns.lookup (getaddrinfo) runs on that pool, which the process shares with scrypt (console log-ins) and
 * file reads: when those fill its threads, a wallet call's connection waits for a look-up behind them and
 * misses PARTNER_CALLBACK_TIMEOUT, and the bet is refused. So names are answered from /etc/hosts (read at
 * start, as getaddrinfo would), `localhost` and `*.localhost` are this machine's loopback (RFC 6761), and
 * every other name is asked of the DNS servers of /etc/resolv.conf through c-ares (dns.Resolver), which
 * does its network I/O on the event loop. Names that only a system plugin knows (mDNS, NIS) do not resolve.
 */

type Family = 0 | 4 | 6
export type ResolveCallback = (error: NodeJS.ErrnoException | null, addresses: Array<dns.LookupAddress>) => void

/** /etc/hosts as a map of lower-cased names to their addresses, in the file's order. */
export const parseHosts = (text: string): ReadonlyMap<string, ReadonlyArray<dns.LookupAddress>> => {
  const names = new Map<string, Array<dns.LookupAddress>>()
  for (const line of text.split("\n")) {
    const [address, ...aliases] = line.replace(/#.*$/, "").trim().split(/\s+/)
    const family = net.isIP(address ?? "")
    if (family === 0) continue
    for (const alias of aliases) {
      const name = alias.toLowerCase()
      const known = names.get(name) ?? []
      if (!known.some((entry) => entry.address === address)) known.push({ address, family })
      names.set(name, known)
    }
  }
  return names
}

const readHosts = () => {
  try {
    return parseHosts(readFileSync("/etc/hosts", "utf8"))
  } catch {
    return new Map<string, ReadonlyArray<dns.LookupAddress>>()
  }
}

const loopback: ReadonlyArray<dns.LookupAddress> = [{ address: "127.0.0.1", family: 4 }, { address: "::1", family: 6 }]

const notFound = (hostname: string, cause?: NodeJS.ErrnoException): NodeJS.ErrnoException =>
  Object.assign(new Error(`${hostname} does not resolve${cause?.code === undefined ? "" : ` (${cause.code})`}`), {
    code: cause?.code === "ETIMEOUT" || cause?.code === "ECONNREFUSED" ? cause.code : "ENOTFOUND",
    hostname
  })

/** The family a node:net look-up asks for: 4, 6 or either (0). */
export const familyOf = (options: { readonly family?: number | string | undefined }): Family =>
  options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : 0

export const makeHostResolver = (options: {
  readonly hosts?: ReadonlyMap<string, ReadonlyArray<dns.LookupAddress>>
  readonly resolver?: dns.Resolver
} = {}) => {
  const hosts = options.hosts ?? readHosts()
  const resolver = options.resolver ?? new dns.Resolver({ timeout: 2_000, tries: 2 })

  const ask = (hostname: string, family: 4 | 6) =>
    new Promise<Array<dns.LookupAddress>>((resolve, reject) => {
      const done = (error: NodeJS.ErrnoException | null, addresses: Array<string>) =>
        error === null ? resolve(addresses.map((address) => ({ address, family }))) : reject(error)
      if (family === 4) resolver.resolve4(hostname, done)
      else resolver.resolve6(hostname, done)
    })

  /** Every address of `hostname` of the family asked (IPv4 first when either will do). */
  const resolve = (hostname: string, family: Family): Promise<Array<dns.LookupAddress>> => {
    const name = hostname.toLowerCase().replace(/\.$/, "")
    const ipFamily = net.isIP(name)
    const fits = (entry: dns.LookupAddress) => family === 0 || entry.family === family
    if (ipFamily !== 0) return Promise.resolve([{ address: name, family: ipFamily }].filter(fits))
    const listed = hosts.get(name) ?? (name === "localhost" || name.endsWith(".localhost") ? loopback : undefined)
    if (listed !== undefined) {
      const matching = listed.filter(fits)
      return matching.length > 0 ? Promise.resolve(matching) : Promise.reject(notFound(hostname))
    }
    const families: Array<4 | 6> = family === 0 ? [4, 6] : [family]
    return Promise.allSettled(families.map((each) => ask(name, each))).then((answers) => {
      const addresses = answers.flatMap((answer) => answer.status === "fulfilled" ? answer.value : [])
      if (addresses.length > 0) return addresses
      const failure = answers.find((answer) => answer.status === "rejected")
      throw notFound(hostname, failure?.status === "rejected" ? failure.reason : undefined)
    })
  }

  return {
    resolve,
    /** The same, for a callback-style caller such as node:net's `lookup` option. */
    resolveWith: (hostname: string, family: Family, callback: ResolveCallback) => {
      resolve(hostname, family).then((addresses) => callback(null, addresses), (error) => callback(error, []))
    }
  }
}
