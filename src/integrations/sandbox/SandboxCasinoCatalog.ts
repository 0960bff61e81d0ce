import type { UpstreamGame, UpstreamProvider } from "../../casino/CasinoGateway.ts"

/**
 * The sandbox aggregator's casino catalog: a dozen providers and several hundred
 * games, a few of them disabled, generated from a fixed seed so every start
 * (and every machine) sees the same codes.
 */

const providerNames = [
  "Aurora Gaming",
  "Red Fox Studios",
  "Tropical Reels",
  "Golden Lotus",
  "Nordic Spin",
  "Samba Slots",
  "Neon Arcade",
  "Pharaoh Works",
  "Lucky Panda",
  "Atlantis Play",
  "Thunder Peak",
  "Carnival Labs"
] as const

const adjectives = [
  "Golden",
  "Lucky",
  "Wild",
  "Mystic",
  "Royal",
  "Crystal",
  "Fire",
  "Frozen",
  "Thunder",
  "Jungle",
  "Cosmic",
  "Sweet",
  "Dragon's",
  "Pharaoh's",
  "Viking",
  "Samurai",
  "Candy",
  "Diamond",
  "Emerald",
  "Ruby",
  "Midnight",
  "Sunset",
  "Ancient",
  "Magic",
  "Electric",
  "Shadow",
  "Silver",
  "Blazing",
  "Hidden",
  "Lost"
] as const

const nouns = [
  "Fortune",
  "Treasure",
  "Reels",
  "Gems",
  "Riches",
  "Quest",
  "Spins",
  "Temple",
  "Kingdom",
  "Safari",
  "Fiesta",
  "Bonanza",
  "Jackpot",
  "Legends",
  "Carnival",
  "Empire",
  "Voyage",
  "Garden",
  "Heist",
  "Nights",
  "Express",
  "Fruits",
  "Wolves",
  "Tigers",
  "Pearls",
  "Crown",
  "Storm",
  "Oasis",
  "Galaxy",
  "Mines"
] as const

/** mulberry32: a tiny deterministic PRNG; quality is plenty for a demo catalog. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")

export interface SandboxCasinoCatalog {
  readonly providers: ReadonlyArray<UpstreamProvider>
  readonly games: ReadonlyArray<UpstreamGame>
}

/**
 * The catalog. Its art is served by this service, so image URLs are paths
 * (`/sandbox/casino/art/...`): what is stored never depends on the address
 * of the process that synced it; the API prefixes the public URL when it
 * answers.
 */
export const sandboxCasinoCatalog = (): SandboxCasinoCatalog => {
  const next = random(20241122)
  const providers: Array<UpstreamProvider> = []
  const games: Array<UpstreamGame> = []
  for (const name of providerNames) {
    const provider: UpstreamProvider = {
      code: name,
      name,
      enabled: true,
      imageUrl: `/sandbox/casino/art/provider-${slug(name)}.svg`
    }
    providers.push(provider)
    const prefix = name.split(" ").map((word) => word[0].toLowerCase()).join("")
    const count = 30 + Math.floor(next() * 11)
    const seen = new Set<string>()
    while (seen.size < count) {
      const title = `${adjectives[Math.floor(next() * adjectives.length)]} ${nouns[Math.floor(next() * nouns.length)]}`
      if (seen.has(title)) continue
      seen.add(title)
      const code = `${prefix}-${slug(title)}`
      games.push({
        code,
        name: title,
        providerCode: provider.code,
        enabled: next() >= 0.03,
        original: next() >= 0.2,
        imageUrl: `/sandbox/casino/art/${code}.svg`
      })
    }
  }
  return { providers, games }
}
