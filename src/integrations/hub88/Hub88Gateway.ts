import { Duration, Effect, Exit, flow, Layer, Option, Redacted, Schedule, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { CasinoConfig } from "../../casino/CasinoConfig.ts"
import {
  CasinoGateway,
  CasinoGatewayError,
  type GameLaunch,
  type UpstreamGame,
  type UpstreamProvider
} from "../../casino/CasinoGateway.ts"
import { withoutSecrets } from "../../platform/Secrets.ts"
import {
  type AttemptError,
  attemptFailure,
  decodeBody,
  timeEachAttempt,
  type UpstreamFailure
} from "../../platform/UpstreamHttp.ts"
import { Hub88Config } from "./Hub88Config.ts"
import { Hub88LaunchTokens } from "./Hub88LaunchTokens.ts"
import { signatureHeader, signBody } from "./Hub88Signature.ts"

/** Hub88's Games API paths (operator -> Hub88), each a signed POST with a JSON body. */
export const gamesPaths = {
  list: "/operator/generic/v2/game/list",
  url: "/operator/generic/v2/game/url"
} as const

const Maybe = <S extends Schema.Top>(schema: S) => Schema.optional(Schema.NullOr(schema))

/** A game of `/game/list`: the fields the catalogue keeps are required, the rest of its metadata is not read here. */
const ListedGame = Schema.Struct({
  game_code: Schema.NonEmptyString,
  name: Schema.NonEmptyString,
  /** The studio: Hub88 has no provider list, its providers are the distinct products. */
  product: Schema.NonEmptyString,
  enabled: Maybe(Schema.Boolean),
  url_thumb: Maybe(Schema.String)
})
export const GameListAnswer = Schema.Array(ListedGame)
export type ListedGame = typeof ListedGame.Type

const GameUrlAnswer = Schema.Struct({ url: Schema.NonEmptyString })

/** What a launch adds to the port's request: the port carries `platform` and `country`; the rest are sent when given. */
export interface Hub88LaunchOptions {
  /** `desktop` (the default) or `mobile`: Hub88's GPL_DESKTOP / GPL_MOBILE. */
  readonly platform?: "desktop" | "mobile" | undefined
  /** ISO 3166-1 alpha-2. */
  readonly country?: string | undefined
  /** The player's IP address. */
  readonly ip?: string | undefined
  readonly lobbyUrl?: string | undefined
  readonly depositUrl?: string | undefined
  readonly meta?: Readonly<Record<string, unknown>> | undefined
}

/** The body of `/game/url`, in Hub88's names; fields without a value are left out. */
export const launchBody = (input: {
  readonly request: GameLaunch
  readonly token: string
  readonly operatorId: number
  readonly subPartnerId: Option.Option<string>
  readonly options: Hub88LaunchOptions
}): Record<string, unknown> => {
  const { options, request } = input
  const optional = {
    sub_partner_id: Option.getOrUndefined(input.subPartnerId),
    country: options.country,
    lobby_url: options.lobbyUrl,
    deposit_url: options.depositUrl,
    ip: options.ip,
    meta: options.meta
  }
  return {
    user: String(request.userCode),
    token: input.token,
    platform: options.platform === "mobile" ? "GPL_MOBILE" : "GPL_DESKTOP",
    operator_id: input.operatorId,
    lang: request.lang,
    game_code: request.gameCode,
    currency: request.currency.code,
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined))
  }
}

/** The catalogue's providers: the distinct products, in the list's order; one is enabled while any game of it is. */
export const providersOf = (games: ReadonlyArray<ListedGame>): ReadonlyArray<UpstreamProvider> => {
  const byProduct = new Map<string, UpstreamProvider>()
  for (const game of games) {
    const known = byProduct.get(game.product)
    const enabled = (known?.enabled ?? false) || (game.enabled ?? true)
    byProduct.set(game.product, { code: game.product, name: game.product, enabled, imageUrl: null })
  }
  return [...byProduct.values()]
}

/** A listed game as the catalogue keeps it; Hub88 has no "original" flag, so every game is its studio's own. */
export const upstreamGameOf = (game: ListedGame): UpstreamGame => ({
  code: game.game_code,
  name: game.name,
  providerCode: game.product,
  enabled: game.enabled ?? true,
  original: true,
  imageUrl: game.url_thumb ?? null
})

/**
 * Hub88's Games API behind the CasinoGateway port: every call a POST whose body is signed with the operator's key
 * (X-Hub88-Signature), over effect's HttpClient with CASINO_GATEWAY_TIMEOUT on each attempt. The catalogue is one
 * call (`/game/list`, every game): its providers are the distinct `product` values, and a sync's reads share one
 * answer for a minute (a failure is not kept). A read is retried with backoff on transient failures; a launch never.
 * Selected by CASINO_GATEWAY listing `hub88` (CasinoGatewaySelection); its wallet calls are served apart.
 * `layerNoDeps` leaves the launch tokens to the caller; `layer` mints them with Hub88LaunchTokens.layer.
 */
export const layerNoDeps = Layer.effect(
  CasinoGateway,
  Effect.gen(function*() {
    const config = yield* Hub88Config
    const casino = yield* CasinoConfig
    const tokens = yield* Hub88LaunchTokens
    const privateKey = Redacted.value(config.privateKey)
    const timeoutText = Duration.format(casino.timeout)

    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest(flow(HttpClientRequest.prependUrl(config.baseUrl), HttpClientRequest.acceptJson)),
      HttpClient.filterStatusOk,
      timeEachAttempt(casino.timeout, { retried: true })
    )
    const reads = client.pipe(
      HttpClient.retryTransient({ retryOn: "errors-only", schedule: Schedule.exponential("200 millis"), times: 3 })
    )

    /** A POST of `body` to `path`, signed over the exact bytes sent. */
    const signedPost = (path: string, body: unknown) => {
      const bytes = new TextEncoder().encode(JSON.stringify(body))
      return HttpClientRequest.post(path).pipe(
        HttpClientRequest.setHeader(signatureHeader, signBody(bytes, privateKey)),
        HttpClientRequest.bodyUint8Array(bytes, "application/json")
      )
    }

    const fail = (
      reason: CasinoGatewayError["reason"],
      message: string,
      providerResponse: unknown,
      secrets: ReadonlyArray<string>
    ) =>
      new CasinoGatewayError({
        reason,
        message: String(withoutSecrets(message, secrets)),
        ...(providerResponse === undefined ? {} : { providerResponse: withoutSecrets(providerResponse, secrets) })
      })

    /** An upstream failure in the gateway's words; `what` names the call. */
    const gatewayError = (what: string, secrets: ReadonlyArray<string>) => (failure: UpstreamFailure) => {
      const { body, status } = failure
      switch (failure.kind) {
        case "Unreachable":
          return fail("Unavailable", `Hub88 could not be reached (${what}): ${failure.detail}`, undefined, secrets)
        case "Unreadable":
          return fail("Unavailable", `Hub88's answer could not be read (${what}).`, undefined, secrets)
        case "TimedOut":
          return fail("Timeout", `Hub88 did not answer ${what} within ${timeoutText}.`, undefined, secrets)
        case "NotJson":
          return (status ?? 200) >= 500
            ? fail("Unavailable", `Hub88 failed (${what}, HTTP ${status}, not JSON).`, body, secrets)
            : fail("InvalidResponse", `Hub88 answered ${what} with something that is not JSON.`, body, secrets)
        case "Shape":
          return fail("InvalidResponse", `Hub88's answer to ${what} has an unexpected shape.`, body, secrets)
        case "Status": {
          if ((status ?? 500) >= 500) {
            return fail("Unavailable", `Hub88 failed (${what}, HTTP ${status}).`, body, secrets)
          }
          const said = typeof (body as { error?: unknown } | undefined)?.error === "string"
            ? `: ${(body as { error: string }).error}`
            : "."
          return fail("Rejected", `Hub88 refused ${what} (HTTP ${status})${said}`, body, secrets)
        }
      }
    }

    const call = <A>(
      through: HttpClient.HttpClient.With<AttemptError>,
      request: HttpClientRequest.HttpClientRequest,
      answer: Schema.Codec<A, unknown>,
      what: string,
      secrets: ReadonlyArray<string> = []
    ): Effect.Effect<A, CasinoGatewayError> =>
      through.execute(request).pipe(
        Effect.catch(attemptFailure),
        Effect.flatMap(decodeBody(answer)),
        Effect.mapError(gatewayError(what, secrets))
      )

    const catalogue = yield* call(
      reads,
      signedPost(gamesPaths.list, { operator_id: config.operatorId }),
      GameListAnswer,
      "the game list"
    ).pipe(
      Effect.withSpan("Hub88.gameList"),
      Effect.cachedWithTTL((exit) => Exit.isSuccess(exit) ? Duration.minutes(1) : Duration.zero)
    )

    const launchWith = (request: GameLaunch, options: Hub88LaunchOptions) =>
      Effect.gen(function*() {
        if (!config.currencies.some((currency) => currency.code === request.currency.code)) {
          return yield* fail(
            "Rejected",
            `Hub88 does not play in ${request.currency.code} for this account (HUB88_CURRENCIES).`,
            undefined,
            []
          )
        }
        const user = String(request.userCode)
        const token = yield* tokens.mint({ user, gameCode: request.gameCode, currency: request.currency.code })
        const body = launchBody({
          request,
          token,
          operatorId: config.operatorId,
          subPartnerId: config.subPartnerId,
          options
        })
        const answer = yield* call(client, signedPost(gamesPaths.url, body), GameUrlAnswer, "the game launch", [token])
        return { url: answer.url, response: withoutSecrets(answer, [token]) }
      }).pipe(Effect.withSpan("Hub88.launch", { attributes: { game: request.gameCode } }))

    return CasinoGateway.of({
      name: "hub88",
      // Hub88Config refuses to start without every setting, so a gateway that exists is configured.
      configured: true,
      serves: (currency) => config.currencies.some((served) => served.code === currency.code),
      providers: Effect.map(catalogue, providersOf),
      games: (provider) =>
        Effect.map(catalogue, (games) => games.filter((game) => game.product === provider.code).map(upstreamGameOf)),
      launch: (request) => launchWith(request, { platform: request.platform, country: request.country })
    })
  })
)

/** The gateway with its HMAC launch tokens; needs Hub88Config, CasinoConfig and an HttpClient. */
export const layer = layerNoDeps.pipe(Layer.provide(Hub88LaunchTokens.layer))
