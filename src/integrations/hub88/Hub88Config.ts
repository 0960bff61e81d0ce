import { Config, Context, Duration, Effect, Layer, Option, Redacted, Result, Schema, SchemaIssue } from "effect"
import type { KeyObject } from "node:crypto"
import { readFileSync } from "node:fs"
import type { Currency } from "../../domain/Currency.ts"
import { expressibleWithImpliedDecimals, hub88ImpliedDecimals } from "../../domain/ImpliedDecimals.ts"
import { CurrencyConfig } from "../../platform/CurrencyConfig.ts"
import { privateKeyOf, publicKeyOf, samePublicKey } from "./Hub88Signature.ts"

const invalid = (message: string) =>
  new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message })))

/** The account at Hub88, from the environment (HUB88_*); read only where Hub88 is used. */
export class Hub88Config extends Context.Service<Hub88Config, {
  /** Hub88's API for the account's region, without a trailing slash (`https://api.hub88.io`). */
  readonly baseUrl: string
  readonly operatorId: number
  /** The brand under the operator, sent on every launch when set. */
  readonly subPartnerId: Option.Option<string>
  /** The operator's key, which signs every call to Hub88. Redacted: a log or an error shows no part of it. */
  readonly privateKey: Redacted.Redacted<KeyObject>
  /** Hub88's key, which every wallet call Hub88 makes must be signed with. */
  readonly publicKey: KeyObject
  /** The currencies the account plays in (HUB88_CURRENCIES), each one Hub88's amounts can express exactly. */
  readonly currencies: ReadonlyArray<Currency>
  /** How long a launch's token admits bets. */
  readonly tokenTtl: Duration.Duration
}>()("partner-api/integrations/hub88/Hub88Config") {
  static readonly config = Config.all({
    baseUrl: Config.URL("HUB88_BASE_URL").pipe(
      Config.mapEffect((url) =>
        url.protocol === "https:" || url.protocol === "http:"
          ? Effect.succeed(url.toString().replace(/\/+$/, ""))
          : Effect.fail(invalid(`HUB88_BASE_URL must be an http(s) URL, such as https://api.hub88.io`))
      )
    ),
    operatorId: Config.Int("HUB88_OPERATOR_ID").pipe(
      Config.mapEffect((id) =>
        id > 0 ? Effect.succeed(id) : Effect.fail(invalid(`HUB88_OPERATOR_ID must be a positive integer (${id})`))
      )
    ),
    subPartnerId: Config.option(Config.NonEmptyString("HUB88_SUB_PARTNER_ID")),
    privateKey: keyText("HUB88_PRIVATE_KEY").pipe(
      Config.mapEffect(({ name, text }) =>
        Result.match(privateKeyOf(text), {
          onFailure: (why) => Effect.fail(invalid(`${name} ${why}`)),
          onSuccess: (key) => Effect.succeed(Redacted.make(key, { label: "HUB88_PRIVATE_KEY" }))
        })
      )
    ),
    publicKey: keyText("HUB88_PUBLIC_KEY").pipe(
      Config.mapEffect(({ name, text }) =>
        Result.match(publicKeyOf(text), {
          onFailure: (why) => Effect.fail(invalid(`${name} ${why}`)),
          onSuccess: Effect.succeed
        })
      )
    ),
    currencies: Config.all({
      deployment: CurrencyConfig.config,
      codes: Config.option(Config.String("HUB88_CURRENCIES"))
    }).pipe(Config.mapEffect(({ codes, deployment }) => currenciesOf(codes, deployment))),
    tokenTtl: Config.Duration("HUB88_TOKEN_TTL").pipe(
      Config.withDefault(Duration.hours(24)),
      Config.mapEffect((ttl) =>
        Duration.isGreaterThan(ttl, Duration.zero) && Duration.isFinite(ttl)
          ? Effect.succeed(ttl)
          : Effect.fail(invalid("HUB88_TOKEN_TTL must be a positive duration, such as 24 hours"))
      )
    )
  }).pipe(
    Config.mapEffect((settings) =>
      samePublicKey(Redacted.value(settings.privateKey), settings.publicKey)
        ? Effect.fail(invalid(
          "HUB88_PUBLIC_KEY is the operator's own public key: it must be the key Hub88 gave, which signs its wallet calls"
        ))
        : Effect.succeed(settings)
    )
  )

  static readonly layer = Layer.effect(Hub88Config, Effect.map(Hub88Config.config, Hub88Config.of))
}

/**
 * A key's PEM text: from the variable `name`, or from the file `name_FILE` names; one of the two, not both. The text
 * is not kept past its parsing.
 */
function keyText(name: string): Config.Config<{ readonly name: string; readonly text: string }> {
  return Config.all({
    inline: Config.option(Config.Redacted(name)),
    file: Config.option(Config.NonEmptyString(`${name}_FILE`))
  }).pipe(Config.mapEffect(({ file, inline }) => {
    if (Option.isSome(inline) && Option.isSome(file)) {
      return Effect.fail(invalid(`${name} and ${name}_FILE are both set: set one of them`))
    }
    if (Option.isSome(inline)) return Effect.succeed({ name, text: Redacted.value(inline.value) })
    if (Option.isNone(file)) return Effect.fail(invalid(`${name} (PEM text) or ${name}_FILE (its path) must be set`))
    return Effect.try({
      try: () => ({ name: `${name}_FILE (${file.value})`, text: readFileSync(file.value, "utf8") }),
      catch: (error) =>
        invalid(`${name}_FILE names ${file.value}, which could not be read: ${(error as NodeJS.ErrnoException).code}`)
    })
  }))
}

/** HUB88_CURRENCIES (comma-separated; unset: the deployment's default currency), each accepted and expressible. */
const currenciesOf = (
  codes: Option.Option<string>,
  deployment: CurrencyConfig["Service"]
): Effect.Effect<ReadonlyArray<Currency>, Config.ConfigError> => {
  const listed = Option.match(codes, {
    onNone: () => [deployment.defaultCurrency.code],
    onSome: (text) => [...new Set(text.split(",").map((code) => code.trim()).filter((code) => code !== ""))]
  })
  const source = Option.isSome(codes) ? "HUB88_CURRENCIES" : "HUB88_CURRENCIES (unset: DEFAULT_CURRENCY)"
  if (listed.length === 0) return Effect.fail(invalid("HUB88_CURRENCIES names no currency"))
  const currencies: Array<Currency> = []
  for (const code of listed) {
    const currency = deployment.currencies.find(code)
    if (currency === undefined) {
      return Effect.fail(invalid(
        `${source} names ${code}, which is not a currency this deployment accepts (an ISO 4217 code, or a crypto ` +
          "code CRYPTO_CURRENCIES enables)"
      ))
    }
    if (!expressibleWithImpliedDecimals(currency)) {
      return Effect.fail(invalid(
        `${source} names ${code}, which has ${currency.exponent} decimal places: Hub88's amounts carry ` +
          `${hub88ImpliedDecimals}, so its amounts cannot be expressed exactly (a display unit such as mBTC can)`
      ))
    }
    currencies.push(currency)
  }
  return Effect.succeed(currencies)
}
