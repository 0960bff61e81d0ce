/**
 * What the CLI says about a callback URL the policy judges. The CLI checks a URL with its own
 * PARTNER_CALLBACK_ALLOW_PRIVATE, the service sends with its own: set on the CLI alone, a localhost wallet
 * was stored and then every bet to it refused, without a word. Both now read one .env file, and the CLI says so.
 */
import { Console, Effect, Option } from "effect"
import * as net from "node:net"
import { isBlockedAddress } from "../../src/partners/CallbackUrlPolicy.ts"
import { PartnersConfig } from "../../src/partners/PartnersConfig.ts"

const sameSetting = "for the service as well as this CLI (put it in the .env file both read)"

/** A callback URL refused by the CLI's policy: the refusal, and the setting that admits private wallets. */
export const explainCallbackRefusal = <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    // Only the refusals the setting lifts (plain http://, a private address), not a malformed URL's.
    (error) =>
      error.message.startsWith("Invalid callback URL") && /plain http:\/\/|private, loopback/.test(error.message),
    (error) =>
      Effect.flatMap(Effect.service(PartnersConfig), ({ callbackAllowPrivate }) =>
        Effect.fail({
          message: callbackAllowPrivate ? error.message : `${error.message} A wallet on this machine or a private ` +
            `network (plain http://, loopback or private addresses) needs PARTNER_CALLBACK_ALLOW_PRIVATE=true ` +
            `${sameSetting}: allowed by the CLI alone, the URL would be stored and every callback to it refused.`
        }))
  )

/** Whether only PARTNER_CALLBACK_ALLOW_PRIVATE admits this URL, judged by its form (no DNS look-up). */
const needsPrivate = (raw: string) => {
  if (!URL.canParse(raw)) return false
  const url = new URL(raw)
  const host = url.hostname.replace(/^\[|\]$/g, "")
  return url.protocol === "http:" || host === "localhost" || host.endsWith(".localhost") ||
    (net.isIP(host) !== 0 && isBlockedAddress(host))
}

/** After a URL only PARTNER_CALLBACK_ALLOW_PRIVATE admits was stored: a note on stderr that the service needs it too. */
export const noteIfPrivate = (url: Option.Option<string>) =>
  Effect.gen(function*() {
    if (Option.isNone(url) || !needsPrivate(url.value)) return
    if (!(yield* PartnersConfig).callbackAllowPrivate) return
    yield* Console.error(
      `Note: ${url.value} is allowed only by PARTNER_CALLBACK_ALLOW_PRIVATE=true, which the service needs too ` +
        `(its .env or environment): without it the service refuses every callback to this URL.`
    )
  })
