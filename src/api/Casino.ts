import { Effect, Schema, SchemaAST, SchemaGetter, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CasinoGame, CasinoProvider, type PlayerLaunch } from "../domain/Casino.ts"
import { isIsoCountry } from "../domain/Countries.ts"
import { CurrencyCode, storedCurrency } from "../domain/Currency.ts"
import { amountOnWire, decimalAmount } from "../domain/Money.ts"
import { PartnerPlayer } from "../domain/Partner.ts"
import { RtpPolicy } from "../domain/RtpPolicy.ts"
import { isStorable } from "../domain/Text.ts"
import { Envelope } from "./Envelope.ts"
import { ErrorMessages, InternalError, ValidationFailed } from "./Errors.ts"
import { encodeWith, page, PageMeta, PageQuery, PerPageQuery } from "./Paging.ts"
import { RequestValidation } from "./RequestValidation.ts"
import { PartnerUpstreams } from "./Security.ts"

// Validation messages follow the `The :attribute field ...` convention; see RequestValidation.

const text = (max: number, options: { readonly required: boolean }) => {
  const trimmed = Schema.Trim.check(
    isStorable,
    Schema.isMaxLength(max, { message: `The :attribute field must not be greater than ${max} characters.` })
  )
  return options.required
    ? trimmed.check(Schema.isMinLength(1, { message: "The :attribute field is required." }))
    : trimmed
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/**
 * An amount: a number or a plain decimal string, at least 0; never rounded. Its decimals are judged against the
 * launch's currency by the casino (a 422 naming the field when it has more than the currency allows).
 */
export const Money = decimalAmount(
  "The :attribute field must be an amount from 0 to 1000000000000 written plainly (like 150.5 or \"150.50\")."
)

export const launchLanguages = ["pt", "es", "en", "ja", "zh", "ru", "th", "hi"] as const

/** `pt-BR` and `PT` mean `pt`; anything outside the aggregator's languages is refused. */
const Language = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Literals(launchLanguages).annotate({
      message: `The selected :attribute is invalid. Supported: ${launchLanguages.join(", ")}.`
    }),
    {
      decode: SchemaGetter.transform((raw: string) =>
        raw.trim().toLowerCase().split(/[-_]/)[0] as (typeof launchLanguages)[number]
      ),
      encode: SchemaGetter.transform((lang: string) => lang)
    }
  )
)

export const launchPlatforms = ["desktop", "mobile"] as const

const Platform = Schema.Literals(launchPlatforms).annotate({
  message: `The selected :attribute is invalid. Supported: ${launchPlatforms.join(", ")}.`
})

/** An ISO 3166-1 alpha-2 country code, in either case; read upper-case ("br" is "BR"). */
const Country = Schema.String.pipe(
  Schema.decodeTo(
    Schema.String.check(
      Schema.makeFilter((code: string) => isIsoCountry(code), {
        message: "The :attribute field must be an ISO 3166-1 alpha-2 country code, such as BR."
      })
    ),
    {
      decode: SchemaGetter.transform((raw: string) => raw.trim().toUpperCase()),
      encode: SchemaGetter.transform((code: string) => code)
    }
  )
)

const typeMessages: Partial<Record<string, string>> = {
  String: "The :attribute field must be a string.",
  Number: "The :attribute field must be a number.",
  Boolean: "The :attribute field must be true or false."
}

/** An optional field that may also be null; a value of the wrong type is named in the field's terms. */
const optionalNullable = <S extends Schema.Top>(schema: S) =>
  Schema.optionalKey(
    Schema.NullOr(schema).annotate({
      message: typeMessages[SchemaAST.toEncoded(schema.ast)._tag] ?? "The :attribute field is invalid."
    })
  )

/**
 * The launch body. The contract's two descriptions disagree on what is
 * required; this accepts both: player_name and player_email are optional,
 * game_original defaults to true and lang to pt. Optional fields may be null.
 */
const LaunchRequestFields = Schema.Struct({
  external_player_id: text(255, { required: true }),
  player_name: optionalNullable(text(255, { required: false })),
  player_email: optionalNullable(
    text(255, { required: false }).check(
      Schema.isPattern(emailPattern, { message: "The :attribute field must be a valid email address." })
    )
  ),
  player_balance: Money,
  currency: optionalNullable(
    CurrencyCode.annotate({ message: "The :attribute field must be a currency code such as BRL, EUR or BTC." })
  ),
  game_code: text(255, { required: true }),
  provider: Schema.Union([
    text(255, { required: true }),
    Schema.Int.pipe(Schema.decodeTo(Schema.String, {
      decode: SchemaGetter.transform((id: number) => String(id)),
      encode: SchemaGetter.transform((id: string) => Number(id))
    }))
  ]).annotate({ message: "The :attribute field must be a string (the provider's slug or id)." }),
  game_original: optionalNullable(Schema.Boolean),
  lang: optionalNullable(Language),
  user_rtp: optionalNullable(
    Schema.Number.check(
      Schema.isInt({ message: "The :attribute field must be an integer." }),
      Schema.isBetween({ minimum: 0, maximum: 100 }, { message: "The :attribute field must be between 0 and 100." })
    )
  ),
  /** The player's device: `desktop` (the default) or `mobile`; passed to aggregators that take it. */
  platform: optionalNullable(Platform),
  /** The player's country, ISO 3166-1 alpha-2; passed to aggregators that take it. */
  country: optionalNullable(Country)
})

/** A launch as a partner sends it (the wire form: `player_balance` in currency units). */
const launchExample: typeof LaunchRequestFields.Encoded = {
  external_player_id: "player-42",
  player_name: "Ana Souza",
  player_email: "ana@example.com",
  player_balance: "150.50",
  currency: "BRL",
  game_code: "vs20fruitsw",
  provider: "pragmatic-play",
  game_original: true,
  lang: "pt"
}

export const LaunchRequest = LaunchRequestFields.annotate({
  identifier: "LaunchRequest",
  // Examples are shown as written, so this one is the wire form.
  examples: [launchExample as unknown as typeof LaunchRequestFields.Type]
})
export type LaunchRequest = typeof LaunchRequest.Type

// The entries below are the domain's records as partners see them: the fields partners get, in the
// wire's order, renamed at the edge (the slug is `provider`, the id `provider_id`).

/** A provider (domain CasinoProvider) on the wire: `{ provider, provider_id, name }`. */
export const ProviderEntryCodec = Schema.Struct({
  slug: CasinoProvider.fields.slug.annotate({ description: "The provider's slug" }),
  id: CasinoProvider.fields.id,
  name: CasinoProvider.fields.name
}).pipe(Schema.encodeKeys({ slug: "provider", id: "provider_id" }))

/** A game (domain CasinoGame) on the wire, its provider's slug as `provider`. */
export const GameEntryCodec = Schema.Struct({
  gameCode: CasinoGame.fields.gameCode,
  providerSlug: CasinoGame.fields.providerSlug.annotate({ description: "The provider's slug" }),
  // Spelled out: the wire's order of keys, not the domain's.
  providerId: CasinoGame.fields.providerId,
  name: CasinoGame.fields.name,
  enabled: CasinoGame.fields.enabled,
  imageUrl: CasinoGame.fields.imageUrl,
  original: CasinoGame.fields.original
}).pipe(Schema.encodeKeys({
  gameCode: "game_code",
  providerSlug: "provider",
  providerId: "provider_id",
  imageUrl: "image_url"
}))

// The contract declares the wire side, so the typed client reads what partners read (`provider`).
export const ProviderEntry = Schema.toEncoded(ProviderEntryCodec)
export const GameEntry = Schema.toEncoded(GameEntryCodec)

/**
 * A partner's player (domain PartnerPlayer) on the wire; its balance in its currency's units, as partners send it: a
 * number for currencies of up to 3 decimals, a decimal string beyond (docs/partner-guide/casino.md, "Currencies").
 */
export const PartnerPlayerEntryCodec = Schema.Struct({
  ...Struct.pick(PartnerPlayer.fields, ["id", "externalPlayerId"]),
  internalUserId: PartnerPlayer.fields.internalUserId.annotate({
    description: "The user code this service uses for the player upstream (one per currency the player plays in)"
  }),
  balance: Schema.Union([Schema.Finite, Schema.String]),
  currency: PartnerPlayer.fields.currency.annotate({ description: "The currency of this launch and its balance" })
}).pipe(Schema.encodeKeys({ externalPlayerId: "external_player_id", internalUserId: "internal_user_id" }))
export const PartnerPlayerEntry = Schema.toEncoded(PartnerPlayerEntryCodec)

/**
 * What became of the launch's `user_rtp` (an extra property of `launch`; the contract's `url` is unchanged): the
 * partner's RTP policy, the value sent (null: none) and the value the aggregator got (null: none, its default).
 */
export const LaunchRtp = Schema.Struct({
  policy: RtpPolicy,
  requested: Schema.NullOr(Schema.Int).annotate({ description: "The launch's `user_rtp`; null when it carried none" }),
  applied: Schema.NullOr(Schema.Int).annotate({
    description:
      "What the casino aggregator was sent: the policy applied to `requested`; null: none (the aggregator's default)"
  })
}).annotate({ identifier: "LaunchRtp" })

export class CasinoGroup extends HttpApiGroup.make("casino")
  .add(
    HttpApiEndpoint.get("providers", "/providers", {
      success: Envelope("ProvidersResponse", Schema.Struct({ list: Schema.Array(ProviderEntry) }), {
        example: {
          list: [
            { provider: "pragmatic-play", provider_id: 1, name: "Pragmatic Play" },
            { provider: "pg-soft", provider_id: 2, name: "PG Soft" }
          ]
        }
      })
    }).annotateMerge(OpenApi.annotations({
      summary: "The enabled casino providers",
      description: "Every provider a game can be launched from, in id order. `provider` (the slug) or `provider_id` " +
        "is what `/games` and `/launch` take as `provider`."
    }))
  )
  .add(
    HttpApiEndpoint.get("games", "/games", {
      query: {
        provider: Schema.optional(
          Schema.String.annotate({ description: "Provider id (integer) or slug", examples: ["pragmatic-play"] })
        ),
        search: Schema.optional(
          Schema.String.annotate({ description: "Case-insensitive, over name and game code", examples: ["sweet"] })
        ),
        enabled: Schema.optional(Schema.Literals(["true", "false"])).annotate({
          description: "Only enabled (true) or only disabled (false) games; both when absent"
        }),
        page: Schema.optional(PageQuery),
        per_page: Schema.optional(PerPageQuery)
      },
      success: Envelope("GamesResponse", Schema.Struct({ games: Schema.Array(GameEntry), meta: PageMeta }), {
        example: {
          games: [{
            game_code: "vs20fruitsw",
            provider: "pragmatic-play",
            provider_id: 1,
            name: "Sweet Bonanza",
            enabled: true,
            image_url: "https://cdn.example.com/games/vs20fruitsw.png",
            original: true
          }],
          meta: { page: 1, per_page: 50, total: 1 }
        }
      })
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Casino games, filtered by provider and search, paged",
      description: "Disabled games are listed too, flagged `enabled: false` (filter with `enabled=true`). Ordered by " +
        "provider, then name. A `provider` (id or slug) the catalog of the token's environment does not know is a 422 " +
        "on `provider`: list them with `/providers` (a test token's are the sandbox aggregator's)."
    }))
  )
  .add(
    HttpApiEndpoint.post("launch", "/launch", {
      payload: LaunchRequest,
      success: Envelope(
        "LaunchResponse",
        Schema.Struct({
          launch: Schema.Struct({ url: Schema.String, rtp: LaunchRtp }),
          partner_player: PartnerPlayerEntry
        }),
        {
          example: {
            launch: {
              url: "https://play.example.com/launch?token=3f9c2b7e",
              rtp: { policy: { mode: "clamp", min: 85, max: 96 }, requested: 98, applied: 96 }
            },
            partner_player: {
              id: 4051,
              external_player_id: "player-42",
              internal_user_id: 1000123,
              balance: 150.5,
              currency: "BRL"
            }
          }
        }
      ),
      error: InternalError
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Launch a game for a player of the partner",
      description: "Resolves or creates the partner's player (by external_player_id), records the balance " +
        "the partner sent, and asks the casino aggregator for a launch URL. `user_rtp` goes through the partner's RTP " +
        "policy (passed on, clamped into a range, or replaced by a fixed value), and `launch.rtp` says what the aggregator " +
        "got. Every failing field is named at once " +
        "in a 422; an unknown provider or game is a 422 on `provider` or `game_code`. When the aggregator " +
        "gives no launch URL the answer is a 500 with a plain message (refused, unavailable, no answer in time) " +
        "and `provider`; what the aggregator said stays in the operator's log."
    }))
  )
  .middleware(PartnerUpstreams)
  .annotateMerge(OpenApi.annotations({
    description: "Casino providers and games, and game launches. With a test token, the embedded sandbox " +
      "aggregator's catalog and game pages answer, whatever aggregator the live token reaches."
  }))
{}

// The edge: a request as the casino services take it, and their answers as the contract writes them.

/** A games query as the catalog takes it: `enabled` a boolean, the page asked for. */
export const gameQueryOf = (query: {
  readonly provider?: string | undefined
  readonly search?: string | undefined
  readonly enabled?: "true" | "false" | undefined
  readonly page?: number | undefined
  readonly per_page?: number | undefined
}) => ({
  provider: query.provider?.trim(),
  search: query.search,
  enabled: query.enabled === undefined ? undefined : query.enabled === "true",
  ...page(query)
})

/** A launch as Casino.launch takes it; what the body leaves out is null. */
export const playerLaunchOf = (payload: LaunchRequest): PlayerLaunch => ({
  externalPlayerId: payload.external_player_id,
  playerName: payload.player_name ?? null,
  playerEmail: payload.player_email ?? null,
  playerBalance: payload.player_balance,
  currency: payload.currency ?? null,
  provider: payload.provider,
  platform: payload.platform ?? null,
  country: payload.country ?? null,
  gameCode: payload.game_code,
  original: payload.game_original ?? null,
  lang: payload.lang ?? null,
  rtp: payload.user_rtp ?? null
})

const providerEntries = encodeWith(Schema.Array(ProviderEntryCodec))
const gameEntries = encodeWith(Schema.Array(GameEntryCodec))
const partnerPlayerEntry = encodeWith(PartnerPlayerEntryCodec)

/** The enabled providers, as `/providers` answers them. */
export const providersAnswer = (providers: ReadonlyArray<CasinoProvider>) =>
  Effect.map(providerEntries(providers), (list) => ({ list }))

/**
 * A page of games, as `/games` answers it. Art this service serves itself is stored as a path; partners get it under
 * `publicBase`, the public URL of the one answering.
 */
export const gamesAnswer = (publicBase: string) =>
(found: {
  readonly games: ReadonlyArray<CasinoGame>
  readonly total: number
  readonly page: number
  readonly perPage: number
}) =>
  Effect.map(
    gameEntries(found.games.map((game) =>
      game.imageUrl?.startsWith("/") ? new CasinoGame({ ...game, imageUrl: `${publicBase}${game.imageUrl}` }) : game
    )),
    (games) => ({ games, meta: { page: found.page, per_page: found.perPage, total: found.total } })
  )

/** A launch, as `/launch` answers it: the player's balance in currency units. */
export const launchAnswer = (launched: {
  readonly url: string
  readonly rtp: typeof LaunchRtp.Type
  readonly player: PartnerPlayer
}) =>
  Effect.map(
    partnerPlayerEntry({
      ...launched.player,
      balance: amountOnWire(launched.player.balance ?? 0n, storedCurrency(launched.player.currency))
    }),
    (player) => ({
      launch: { url: launched.url, rtp: launched.rtp },
      partner_player: player
    })
  )

/** A games listing's failure as the contract answers it: a provider the catalog does not know is a 422 on `provider`. */
export const gamesFailures = {
  UnknownProvider: () =>
    Effect.fail(
      new ValidationFailed({
        message: ErrorMessages.invalidData,
        errors: { provider: ["The selected provider is invalid."] }
      })
    )
}

/**
 * A launch's failures as the contract answers them: what cannot be launched is a 422 naming its fields; no launch URL
 * is a 500 with a plain message (what the aggregator said, and where it is, went to the log: Casino.launch).
 */
export const launchFailures = {
  LaunchRefused: (refused: { readonly errors: ValidationFailed["errors"] }) =>
    Effect.fail(new ValidationFailed({ message: ErrorMessages.invalidData, errors: refused.errors })),
  LaunchFailed: (failed: { readonly partnerMessage: string; readonly gateway: string }) =>
    Effect.fail(new InternalError({ message: failed.partnerMessage, provider: failed.gateway }))
}
