import { NodeHttpServer } from "@effect/platform-node"
import { ByteSize, Duration, Effect, Layer, Option, Schema } from "effect"
import { HttpBody, HttpClient, HttpClientRequest } from "effect/http"
import { IdentityConfig } from "../../src/identity/IdentityConfig.ts"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { CatalogSync } from "../../src/casino/CatalogSync.ts"
import { CallbacksConfig } from "../../src/wallet/CallbacksConfig.ts"
import { SportsCatalogConfig } from "../../src/sports/catalog/SportsCatalogConfig.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { PartnersConfig } from "../../src/partners/PartnersConfig.ts"
import { SportsConfig } from "../../src/sports/SportsConfig.ts"
import { StreamConfig } from "../../src/sports/stream/StreamConfig.ts"
import { AppConfig } from "../../src/platform/AppConfig.ts"
import { CurrencyConfig } from "../../src/platform/CurrencyConfig.ts"
import { Currencies, type Currency } from "../../src/domain/Currency.ts"
import { AddressRanges, ClientAddress } from "../../src/platform/ClientAddress.ts"
import { SharedStoreConfig } from "../../src/platform/SharedStore.ts"
import { ObservabilityConfig } from "../../src/platform/ObservabilityConfig.ts"
import { SandboxConfig } from "../../src/integrations/sandbox/SandboxConfig.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { OperationsConfig } from "../../src/wallet/stuck/OperationsConfig.ts"
import { MaxBodySizeLive } from "../../src/platform/RequestBody.ts"
import { serveApp, servicesLayer } from "../../src/server.ts"
import { TestDatabase, TestDatabaseOnUrl } from "./TestDatabase.ts"

export const testConfig = (overrides: Partial<AppConfig["Service"]> = {}) =>
  AppConfig.of({
    port: 0,
    host: "127.0.0.1",
    databaseUrl: Option.none(),
    dataDir: ".data",
    demoPartnerToken: Option.none(),
    logLevel: "Warn",
    authCacheTtlMillis: 5_000,
    // Test files send many invalid tokens from one address; the limit's own tests set a small one.
    authFailureLimit: 1_000,
    publicUrl: Option.none(),
    shutdownTimeout: Duration.seconds(30),
    ...overrides
  })

export const testCasinoConfig = (overrides: Partial<CasinoConfig["Service"]> = {}) =>
  CasinoConfig.of({
    gateways: ["sandbox"],
    playfiver: {
      baseUrl: "http://127.0.0.1:9",
      agentToken: Option.none(),
      secretKey: Option.none(),
      currency: "BRL"
    },
    timeout: Duration.seconds(2),
    syncInterval: Duration.hours(1),
    catalogCacheTtl: Duration.seconds(30),
    catalogCacheMaxBytes: 1024 * 1024,
    ...overrides
  })

/**
 * An hourly quota a test cannot spend: each bucket's burst of 60 comes back within a millisecond (the limiter's
 * shortest window). A spent quota serves the last answer kept, stale, so a test that moves the provider's data and
 * reads it back at full speed would, on a fast run, read old prices; a test of the quota sets its own.
 */
export const quotaNeverSpent = 1_000_000_000

export const testSportsConfig = (overrides: Partial<SportsConfig["Service"]> = {}) =>
  SportsConfig.of({
    provider: "sandbox",
    betsapi: { baseUrl: "http://127.0.0.1:9", token: Option.none() },
    apifootball: { baseUrl: "http://127.0.0.1:9", key: Option.none(), bookmakerId: 8, callsPerMinute: 300 },
    timeout: Duration.seconds(2),
    rateLimitPerHour: 3600,
    partnerQuotaShare: 1,
    scheduledReserve: 0,
    cacheTtlMax: Duration.infinity,
    cacheMaxSize: ByteSize.megabytes(64),
    // The tests' sports data has fixed dates (CatalogScripts: in play on 2026-12-01): no event of it is ever overdue
    // unless a test says so.
    overdueAfter: Duration.infinity,
    ...overrides
  })

export const testCatalogConfig = (overrides: Partial<SportsCatalogConfig["Service"]> = {}) =>
  SportsCatalogConfig.of({
    refreshInterval: Duration.minutes(5),
    liveRefreshInterval: Duration.seconds(30),
    sportIds: [1, 18, 13],
    cacheTtl: Duration.seconds(10),
    cacheMaxBytes: 64 * 1024 * 1024,
    ...overrides
  })

/** The change stream's settings: a short heartbeat, so tests see it without waiting 15 s. */
export const testStreamConfig = (overrides: Partial<StreamConfig["Service"]> = {}) =>
  StreamConfig.of({
    retention: Duration.hours(1),
    staleAfter: Duration.seconds(90),
    heartbeatInterval: Duration.millis(500),
    maxConnectionsPerPartner: 20,
    clientBufferBytes: 1024 * 1024,
    closingAskAfter: Duration.minutes(2),
    ...overrides
  })

/**
 * A partner's answer never meets the time-out unless a test means it to: fake partners answer in the test's own
 * process, which a loaded machine slows, so the default is far above any answer a test delays on purpose. A test
 * of the time-out sets a short one, and a partner far slower than it (the fake's timer starts after the service's,
 * so the time-out always comes first, however busy the machine).
 */
export const testCallbacksConfig = (overrides: Partial<CallbacksConfig["Service"]> = {}) =>
  CallbacksConfig.of({
    timeout: Duration.seconds(10),
    maxAttempts: 25,
    workers: 4,
    staleLockAfter: Duration.minutes(10),
    pendingTimeout: Duration.seconds(15),
    walletAgentCode: Option.none(),
    walletAgentSecret: Option.none(),
    aggregatorAllowedIps: new AddressRanges([]),
    certificationRunsPerHour: 6,
    ...overrides
  })

/** Fake partners listen on this machine's loopback, so tests allow private callback URLs unless a test says otherwise. */
export const testPartnersConfig = (overrides: Partial<PartnersConfig["Service"]> = {}) =>
  PartnersConfig.of({
    callbackAllowPrivate: true,
    webhookSecretOverlap: Duration.hours(24),
    rateLimitPerMinute: 1200,
    serviceEnvironment: "production",
    tokenLastUsedInterval: Duration.millis(100),
    ...overrides
  })

/** Memory unless a test names a Redis (and a key prefix of its own). */
export const testSharedStoreConfig = (overrides: Partial<SharedStoreConfig["Service"]> = {}) =>
  SharedStoreConfig.of({ redisUrl: Option.none(), keyPrefix: "pag-test:", fleetSize: 1, ...overrides })

export const testSandboxConfig = (overrides: Partial<SandboxConfig["Service"]> = {}) =>
  SandboxConfig.of({ sessionTtl: Duration.hours(24), maxSpinsPerSession: 1000, ...overrides })

/**
 * /metrics served without a token (METRICS_PUBLIC=true: test apps listen on the loopback and no proxy
 * forwards to them) unless a test sets one or turns it off, and its gauges read afresh at every scrape.
 */
export const testObservabilityConfig = (overrides: Partial<ObservabilityConfig["Service"]> = {}) =>
  ObservabilityConfig.of({
    metricsToken: Option.none(),
    metricsPublic: true,
    metricsGaugeMaxAge: Duration.zero,
    tracesEndpoint: Option.none(),
    tracesHeaders: [],
    serviceName: "partner-aggregator-api-test",
    ...overrides
  })

export const testIdentityConfig = (overrides: Partial<IdentityConfig["Service"]> = {}) =>
  IdentityConfig.of({
    sessionTtl: Duration.hours(8),
    loginMaxFailures: 5,
    loginLockout: Duration.minutes(1),
    loginMaxLockout: Duration.hours(1),
    loginMaxFailuresPerAddress: 100,
    loginWindow: Duration.minutes(15),
    concurrentHashes: 2,
    oneTimePasswordTtl: Duration.hours(24),
    portalSessionTtl: Duration.hours(8),
    invitationTtl: Duration.hours(72),
    ...overrides
  })

/** Stuck after a minute, no operator alert, unless a test says otherwise. */
export const testOperationsConfig = (overrides: Partial<OperationsConfig["Service"]> = {}) =>
  OperationsConfig.of({
    stuckRoundAfter: Duration.minutes(1),
    alertUrl: Option.none(),
    alertSecret: Option.none(),
    ...overrides
  })

export interface TestSettings {
  readonly app?: Partial<AppConfig["Service"]>
  readonly casino?: Partial<CasinoConfig["Service"]>
  readonly sports?: Partial<SportsConfig["Service"]>
  readonly catalog?: Partial<SportsCatalogConfig["Service"]>
  readonly stream?: Partial<StreamConfig["Service"]>
  readonly callbacks?: Partial<CallbacksConfig["Service"]>
  readonly partners?: Partial<PartnersConfig["Service"]>
  readonly sandbox?: Partial<SandboxConfig["Service"]>
  readonly shared?: Partial<SharedStoreConfig["Service"]>
  readonly observability?: Partial<ObservabilityConfig["Service"]>
  readonly admin?: Partial<IdentityConfig["Service"]>
  readonly operations?: Partial<OperationsConfig["Service"]>
  /** CRYPTO_CURRENCIES (BTC, mBTC and USDT unless a test names others) and DEFAULT_CURRENCY (BRL unless said). */
  readonly currencies?: { readonly crypto?: ReadonlyArray<string>; readonly defaultCurrency?: string }
  /** TRUSTED_PROXIES (none unless a test names some). */
  readonly trustedProxies?: ReadonlyArray<string>
}

/** The tests' currencies: every fiat one and a few crypto codes, so a restriction can mix both. */
export const testCurrencyConfig = (settings: TestSettings["currencies"] = {}): CurrencyConfig["Service"] => {
  const currencies = new Currencies(settings.crypto ?? ["BTC", "mBTC", "USDT"])
  return { currencies, defaultCurrency: currencies.find(settings.defaultCurrency ?? "BRL") as Currency }
}

export type TestConfigs =
  | AppConfig
  | CasinoConfig
  | SportsConfig
  | SportsCatalogConfig
  | StreamConfig
  | CallbacksConfig
  | PartnersConfig
  | CurrencyConfig
  | SandboxConfig
  | SharedStoreConfig
  | ObservabilityConfig
  | IdentityConfig
  | OperationsConfig
  | ClientAddress

export const TestConfig = (settings: TestSettings = {}) =>
  Layer.mergeAll(
    Layer.succeed(AppConfig, testConfig(settings.app)),
    Layer.succeed(CasinoConfig, testCasinoConfig(settings.casino)),
    Layer.succeed(SportsConfig, testSportsConfig(settings.sports)),
    Layer.succeed(SportsCatalogConfig, testCatalogConfig(settings.catalog)),
    Layer.succeed(StreamConfig, testStreamConfig(settings.stream)),
    Layer.succeed(CallbacksConfig, testCallbacksConfig(settings.callbacks)),
    Layer.succeed(PartnersConfig, testPartnersConfig(settings.partners)),
    Layer.succeed(CurrencyConfig, testCurrencyConfig(settings.currencies)),
    Layer.succeed(SandboxConfig, testSandboxConfig(settings.sandbox)),
    Layer.succeed(SharedStoreConfig, testSharedStoreConfig(settings.shared)),
    Layer.succeed(ObservabilityConfig, testObservabilityConfig(settings.observability)),
    Layer.succeed(IdentityConfig, testIdentityConfig(settings.admin)),
    Layer.succeed(OperationsConfig, testOperationsConfig(settings.operations)),
    Layer.succeed(ClientAddress, ClientAddress.make(new AddressRanges(settings.trustedProxies ?? [])))
  )

/** The domain services over the test file's own database. */
export const TestServices = (settings: TestSettings = {}) => TestServicesWith(TestConfig(settings))

/**
 * The domain services with settings built by the test (e.g. pointing at a
 * fake upstream); the settings it does not provide are the test defaults.
 */
export const TestServicesWith = <ROut extends TestConfigs, R>(
  config: Layer.Layer<ROut, never, R>,
  walletRepo: Layer.Layer<WalletRepo, never, any> = WalletRepo.layerSql
) =>
  servicesLayer(walletRepo as typeof WalletRepo.layerSql).pipe(
    Layer.provideMerge(TestDatabase),
    Layer.provideMerge(Layer.merge(TestConfig(), config))
  )

/**
 * The whole HTTP service on a real socket (port 0), with an HttpClient
 * pointed at it, the domain services and the database for arranging data.
 */
export const TestApp = (settings: TestSettings = {}, walletRepo?: Layer.Layer<WalletRepo, never, any>) =>
  TestAppWith(TestConfig(settings), walletRepo)

/** `walletRepo`: the wallet's repository, when a test wraps PostgreSQL's to inject a fault. */
export const TestAppWith = <ROut extends TestConfigs, R>(
  config: Layer.Layer<ROut, never, R>,
  walletRepo?: Layer.Layer<WalletRepo, never, any>
) =>
  serveApp({ disableListenLog: true }).pipe(
    Layer.provide(MaxBodySizeLive),
    Layer.provideMerge(NodeHttpServer.layerTest),
    Layer.provideMerge(TestServicesWith(config, walletRepo))
  )

/** Brings the local casino catalog in line with the configured gateway. */
export const givenSyncedCatalog = Effect.flatMap(Effect.service(CatalogSync), (sync) => sync.run).pipe(Effect.orDie)

/**
 * An answer as it came over the wire. The partner API's own answers are read
 * through the typed client (./PartnerClient.ts); this is for what only the
 * wire shows: malformed input, headers, exact statuses and bodies, pages,
 * documents and the aggregator's wallet protocol.
 */
export interface RawResponse {
  readonly status: number
  readonly contentType: string | undefined
  readonly headers: Readonly<Record<string, string>>
  /** Parsed when the answer is JSON, else the text; read it with `bodyAs`. */
  readonly body: unknown
}

/**
 * One request over the wire, with nothing checked or encoded for it (the wire-level
 * helper: prefer the typed client for the contract's answers); the body is parsed when it is JSON.
 */
export const request = (
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  options: {
    readonly headers?: Record<string, string>
    readonly json?: unknown
    readonly body?: string
  } = {}
) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let req = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeaders(options.headers ?? {}))
    if (options.json !== undefined) req = HttpClientRequest.bodyJsonUnsafe(req, options.json)
    if (options.body !== undefined) {
      req = HttpClientRequest.setBody(
        req,
        HttpBody.text(options.body, options.headers?.["content-type"] ?? "application/json")
      )
    }
    const response = yield* client.execute(req)
    const text = yield* response.text
    const contentType = response.headers["content-type"]
    return {
      status: response.status,
      contentType,
      headers: response.headers,
      body: contentType?.includes("json") && text !== "" ? JSON.parse(text) as unknown : text
    } satisfies RawResponse
  }).pipe(Effect.orDie)

/** Reads a raw answer's body as `schema` says (its wire form); a body that does not fit fails the test, naming why. */
export const bodyAs = <A>(schema: Schema.Decoder<A>) => (response: Pick<RawResponse, "body">): A =>
  Schema.decodeUnknownSync(schema)(response.body)

/** A raw answer that is not JSON (a page, a file): its text. */
export const textBody = bodyAs(Schema.String)

/** The error envelope as the wire carries it: `{success: false, message}`, with `errors` on a 422. */
export const ErrorBody = Schema.Struct({
  success: Schema.Literal(false),
  message: Schema.String,
  errors: Schema.optionalKey(Schema.Record(Schema.String, Schema.Array(Schema.String)))
})

/** A raw answer's error envelope. */
export const errorBody = bodyAs(ErrorBody)

/** A raw 422's `errors`: each failing field and its messages. */
export const validationErrors = (response: Pick<RawResponse, "body">) =>
  bodyAs(Schema.Struct({ ...ErrorBody.fields, errors: ErrorBody.fields.errors.schema }))(response).errors

/** A raw success envelope's `data`, as `data` says. */
export const dataAs = <A>(data: Schema.Decoder<A>) => (response: Pick<RawResponse, "body">): A =>
  bodyAs(Schema.Struct({ success: Schema.Literal(true), data }))(response).data

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
export const partnerKey = (token: string) => ({ "x-partner-key": token })

/** Creates a partner and returns it with its token. */
export const givenPartner = (input: Partial<Parameters<Partners["Service"]["create"]>[0]> = {}) =>
  Effect.flatMap(
    Effect.service(Partners),
    (partners) => partners.create({ name: "Test Partner", ...input })
  ).pipe(Effect.orDie)

/**
 * Another instance of the service on the same database as the test's app (its own pool, caches and
 * server): build it inside a test with `Layer.build`, and send it requests with its context provided.
 */
export const AnotherInstance = (settings: TestSettings = {}) =>
  serveApp({ disableListenLog: true }).pipe(
    Layer.provide(MaxBodySizeLive),
    Layer.provideMerge(NodeHttpServer.layerTest),
    Layer.provideMerge(
      servicesLayer(WalletRepo.layerSql).pipe(
        Layer.provideMerge(TestDatabaseOnUrl),
        Layer.provideMerge(TestConfig(settings))
      )
    ),
    Layer.fresh
  )
