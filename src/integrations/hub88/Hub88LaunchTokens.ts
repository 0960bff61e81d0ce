import { Clock, Context, Duration, Effect, Layer, Redacted } from "effect"
import { createHmac, hkdfSync, type KeyObject, randomBytes, timingSafeEqual } from "node:crypto"
import { Hub88Config } from "./Hub88Config.ts"

/**
 * The token a Hub88 launch carries (`token` of `/game/url`), which Hub88 then sends back on every wallet call of that
 * session. The operator mints it, bound to the player, the game and the currency, and it admits bets for
 * HUB88_TOKEN_TTL.
 *
 * Chosen: a stateless HMAC token, not a random one stored. `v1.<expiry>.<nonce>.<mac>`, where the MAC (HMAC-SHA256)
 * covers the expiry, a random nonce, the user, the currency and the game; the user, game and currency themselves are
 * not in the token (every wallet call carries them), so it is short (about 80 characters, Hub88 allows 10 to 255) and
 * tells a reader nothing. Its key is derived (HKDF-SHA256) from the operator's private key, so every instance of a
 * fleet checks any instance's tokens, a restart keeps them valid, and no new setting or table is needed; a new
 * private key ends every token minted under the old one. What it cannot do is forget one token early (revocation):
 * a stored implementation of this same service would, and is the next step's to add if wanted.
 */
export interface LaunchClaims {
  /** The player as Hub88 knows it (the launch's `user`: the player's user code). */
  readonly user: string
  readonly gameCode: string
  readonly currency: string
}

/**
 * What a token says of a wallet call's claims: `Valid`; `Expired` (genuine and bound to them, past its time: refused
 * on a bet or a balance, `RS_ERROR_TOKEN_EXPIRED`, but never checked on a win or a rollback, which come late);
 * `Invalid` (not minted here, or for another user, game or currency: `RS_ERROR_INVALID_TOKEN`).
 */
export type TokenCheck = "Valid" | "Expired" | "Invalid"

export class Hub88LaunchTokens extends Context.Service<Hub88LaunchTokens, {
  mint(claims: LaunchClaims): Effect.Effect<string>
  check(token: string, claims: LaunchClaims): Effect.Effect<TokenCheck>
}>()("partner-api/integrations/hub88/Hub88LaunchTokens") {
  /** HMAC tokens keyed from HUB88_PRIVATE_KEY, valid for HUB88_TOKEN_TTL. */
  static readonly layer = Layer.effect(
    Hub88LaunchTokens,
    Effect.map(Effect.service(Hub88Config), (config) => {
      const key = tokenKeyOf(Redacted.value(config.privateKey))
      return Hub88LaunchTokens.of({
        mint: (claims) =>
          Effect.map(
            Clock.currentTimeMillis,
            (now) => mintToken(key, claims, now + Duration.toMillis(config.tokenTtl), randomBytes(12))
          ),
        check: (token, claims) => Effect.map(Clock.currentTimeMillis, (now) => checkToken(key, token, claims, now))
      })
    })
  )
}

const info = "partner-api/hub88/launch-token/v1"

/** The HMAC key of launch tokens, derived from the operator's private key (never the key itself). */
export const tokenKeyOf = (privateKey: KeyObject): Buffer =>
  Buffer.from(hkdfSync("sha256", privateKey.export({ type: "pkcs8", format: "der" }), "", info, 32))

const macOf = (key: Buffer, expiry: string, nonce: string, claims: LaunchClaims): Buffer =>
  createHmac("sha256", key)
    .update(["v1", expiry, nonce, claims.user, claims.currency, claims.gameCode].map(encodeURIComponent).join("\n"))
    .digest()

/** A token for `claims` that expires at `expiresAt` (epoch milliseconds), with a random `nonce`. */
export const mintToken = (key: Buffer, claims: LaunchClaims, expiresAt: number, nonce: Uint8Array): string => {
  const expiry = Math.ceil(expiresAt / 1000).toString(36)
  const nonceText = Buffer.from(nonce).toString("base64url")
  return `v1.${expiry}.${nonceText}.${macOf(key, expiry, nonceText, claims).toString("base64url")}`
}

const tokenShape = /^v1\.([0-9a-z]{1,11})\.([A-Za-z0-9_-]{8,64})\.([A-Za-z0-9_-]{43})$/

/** What `token` says of `claims` at `now` (epoch milliseconds); the MAC is compared in constant time. */
export const checkToken = (key: Buffer, token: string, claims: LaunchClaims, now: number): TokenCheck => {
  const match = tokenShape.exec(token)
  if (match === null) return "Invalid"
  const [, expiry, nonce, mac] = match as unknown as [string, string, string, string]
  const given = Buffer.from(mac, "base64url")
  const expected = macOf(key, expiry, nonce, claims)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "Invalid"
  return parseInt(expiry, 36) * 1000 <= now ? "Expired" : "Valid"
}
