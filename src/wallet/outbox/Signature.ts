import { createHmac, timingSafeEqual } from "node:crypto"
import { callbackHeaders } from "../../domain/Callbacks.ts"

/**
 * How callbacks are signed: HMAC-SHA256, keyed with the partner's webhook
 * secret, over `<timestamp>.<body>` (the timestamp in Unix seconds, the body
 * byte for byte), sent as `X-Partner-Signature: v1=<hex>` beside
 * `X-Partner-Timestamp`. After a rotation, while the previous secret is
 * still valid, the header carries one signature per secret, newest first:
 * `v1=<new>,v1=<old>`; a partner accepts the callback if any matches. A
 * retry sends the same body with a fresh timestamp.
 */
export const signatureHeader = callbackHeaders.signature
export const timestampHeader = callbackHeaders.timestamp
export const eventIdHeader = callbackHeaders.eventId

export const sign = (secret: string, timestamp: number, body: string) =>
  `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`

export const signedHeaders = (secrets: ReadonlyArray<string>, eventId: string, body: string, now: Date) => {
  const timestamp = Math.floor(now.getTime() / 1000)
  return {
    "content-type": "application/json",
    [eventIdHeader]: eventId,
    [timestampHeader]: String(timestamp),
    [signatureHeader]: secrets.map((secret) => sign(secret, timestamp, body)).join(",")
  }
}

/**
 * A partner's check, as the partner guide (docs/partner-guide/callbacks.md) shows it: one of the signatures matches
 * its secret and the timestamp is recent (5 minutes).
 */
export const verify = (
  secret: string,
  headers: { readonly timestamp: string | undefined; readonly signature: string | undefined },
  body: string,
  now: Date,
  toleranceSeconds = 300
): boolean => {
  const timestamp = Number(headers.timestamp)
  if (!Number.isInteger(timestamp) || Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return false
  const expected = Buffer.from(sign(secret, timestamp, body))
  return (headers.signature ?? "").split(",").some((given) => {
    const candidate = Buffer.from(given.trim())
    return candidate.length === expected.length && timingSafeEqual(candidate, expected)
  })
}
