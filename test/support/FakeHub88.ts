/**
 * A fake Hub88 for the adapter's tests: FakeUpstream (a real port) answering Hub88's Games API as
 * ../shared/spec/hub88.md describes it, after verifying each call's X-Hub88-Signature with the operator's public key,
 * as Hub88 does. The key pairs are made here, once per test file: the operator's (which the adapter signs with) and
 * Hub88's (which signs the wallet calls Hub88 makes).
 */
import { generateKeyPairSync, type KeyObject } from "node:crypto"
import { signatureHeaderKey, signBody, verifyBody } from "../../src/integrations/hub88/Hub88Signature.ts"
import type { Answer, RecordedCall, Script } from "./FakeUpstream.ts"

export interface KeyPair {
  readonly privateKey: KeyObject
  readonly publicKey: KeyObject
  /** The private key as PEM text (PKCS#8), as HUB88_PRIVATE_KEY would carry it. */
  readonly privatePem: string
  /** The private key in PKCS#1 (`BEGIN RSA PRIVATE KEY`). */
  readonly privatePkcs1Pem: string
  /** The public key as SPKI PEM, as HUB88_PUBLIC_KEY would carry it. */
  readonly publicPem: string
}

export const makeKeyPair = (bits = 2048): KeyPair => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: bits })
  return {
    privateKey,
    publicKey,
    privatePem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    privatePkcs1Pem: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    publicPem: publicKey.export({ type: "spki", format: "pem" }).toString()
  }
}

/** The operator's key pair: the adapter signs with its private half, the fake verifies with the public one. */
export const operatorKeys = makeKeyPair()
/** Hub88's own key pair: it signs the wallet calls Hub88 makes. */
export const hub88Keys = makeKeyPair()

export const operatorId = 4242

/** The fake's catalogue: two studios, one spelled twice over its games, a disabled game, a studio all disabled. */
export const hub88Catalogue = [
  {
    game_code: "clt_dragonrising",
    name: "Dragon Rising",
    product: "Crazy Tooth Studio",
    category: "Video Slots",
    enabled: true,
    platforms: ["GPL_DESKTOP", "GPL_MOBILE"],
    blocked_countries: ["US"],
    url_thumb: "https://cdn.example/dragon.png",
    url_background: null,
    rtp: "96.5",
    volatility: 4,
    freebet_support: true,
    demo_game_support: true,
    languages: ["eng", "jpn"]
  },
  {
    game_code: "pgs_fortunetiger",
    name: "Fortune Tiger",
    product: "PG Soft",
    category: "Video Slots",
    enabled: true,
    platforms: ["GPL_MOBILE"],
    blocked_countries: [],
    url_thumb: null,
    rtp: "96.81",
    volatility: 2,
    freebet_support: false,
    demo_game_support: true
  },
  {
    game_code: "clt_oldgame",
    name: "Old Game",
    product: "Crazy Tooth Studio",
    enabled: false,
    platforms: ["GPL_DESKTOP"]
  },
  { game_code: "gone_one", name: "Gone One", product: "Gone Studio", enabled: false }
]

const json = (body: unknown, status = 200): Answer => ({ kind: "json", status, body })

/** Whether the call is signed by the operator's key over its exact bytes. */
export const signedByOperator = (call: RecordedCall, key: KeyObject = operatorKeys.publicKey): boolean => {
  const header = call.headers[signatureHeaderKey]
  return verifyBody(call.raw, typeof header === "string" ? header : undefined, key)
}

/**
 * Hub88 as it answers a well-behaved operator: a call not signed by the operator's key is refused 401 `{error}`;
 * `/game/list` for the operator's id answers the catalogue; `/game/url` answers `{url}`, or 404 `{error}` for a game
 * it does not know.
 */
export const healthyHub88: Script = (call) => {
  if (!signedByOperator(call)) return json({ error: "Invalid signature" }, 401)
  const body = call.body as Record<string, unknown>
  if (body.operator_id !== operatorId) return json({ error: "Operator not found" }, 401)
  switch (call.path) {
    case "/operator/generic/v2/game/list":
      return json(hub88Catalogue)
    case "/operator/generic/v2/game/url": {
      const game = hub88Catalogue.find((listed) => listed.game_code === body.game_code)
      return game === undefined
        ? json({ error: "Game not found" }, 404)
        : json({ url: `https://games.hub88.example/launch/${body.game_code}?session=s-${String(body.user)}` })
    }
    default:
      return json({ error: "Not found" }, 404)
  }
}

/** A wallet call as Hub88 sends it: the exact body text and its signature with Hub88's key (or another). */
export const hub88Signs = (body: string, key: KeyObject = hub88Keys.privateKey) => ({
  body,
  signature: signBody(body, key)
})
