import { Config, Context, Effect, Layer, Schema, SchemaIssue } from "effect"
import { Currencies, type Currency, CurrencyCode, unknownCrypto } from "../domain/Currency.ts"

const invalid = (message: string) =>
  new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message })))

/**
 * The currencies this deployment accepts and the default of partners that never chose one. Every fiat currency is
 * accepted; crypto codes only as CRYPTO_CURRENCIES enables them. DEFAULT_CURRENCY (BRL unless set) is also the
 * currency rows written before currencies existed were in (sql/0027_currencies.sql).
 */
export class CurrencyConfig extends Context.Service<CurrencyConfig, {
  readonly currencies: Currencies
  readonly defaultCurrency: Currency
}>()("partner-api/platform/CurrencyConfig") {
  static readonly config = Config.all({
    crypto: Config.String("CRYPTO_CURRENCIES").pipe(
      Config.withDefault(""),
      Config.map((text) => text.split(",").map((code) => code.trim()).filter((code) => code !== ""))
    ),
    defaultCode: Config.schema(CurrencyCode, "DEFAULT_CURRENCY").pipe(Config.withDefault("BRL"))
  }).pipe(Config.mapEffect(({ crypto, defaultCode }) => {
    const unknown = unknownCrypto(crypto)
    if (unknown !== undefined) {
      return Effect.fail(
        invalid(`CRYPTO_CURRENCIES names ${unknown}, which is not a crypto currency this service knows`)
      )
    }
    const currencies = new Currencies(crypto)
    const defaultCurrency = currencies.find(defaultCode)
    return defaultCurrency === undefined
      ? Effect.fail(invalid(`DEFAULT_CURRENCY ${defaultCode} is not an ISO 4217 currency nor an enabled crypto one`))
      : Effect.succeed({ currencies, defaultCurrency })
  }))

  static readonly layer = Layer.effect(CurrencyConfig, Effect.map(CurrencyConfig.config, CurrencyConfig.of))
}
