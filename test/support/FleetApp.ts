import { NodeHttpServer } from "@effect/platform-node"
import { Duration, Effect, Layer, Option, Redacted, type Scope } from "effect"
import { HttpServer } from "effect/http"
import { createConnection, createServer, type Server, type Socket } from "node:net"
import { CatalogSchedule } from "../../src/sports/catalog/CatalogSchedule.ts"
import { SportsCatalogConfig } from "../../src/sports/catalog/SportsCatalogConfig.ts"
import type { AppConfig } from "../../src/platform/AppConfig.ts"
import { MaxBodySizeLive } from "../../src/platform/RequestBody.ts"
import { SharedStoreConfig } from "../../src/platform/SharedStore.ts"
import { serveApp, servicesLayer } from "../../src/server.ts"
import { SportsConfig } from "../../src/sports/SportsConfig.ts"
import { StreamConfig } from "../../src/sports/stream/StreamConfig.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { FakeUpstream } from "./FakeUpstream.ts"
import { removeKeysUnder, testRedisUrl } from "./RedisKeys.ts"
import { testCatalogConfig, TestConfig, testSharedStoreConfig, testSportsConfig, testStreamConfig } from "./TestApp.ts"
import { TestDatabaseOnUrl } from "./TestDatabase.ts"

export { testRedisUrl }

/** A key prefix of the test's own, and its keys removed when the scope closes (the store's escaped namespace too). */
export const scopedKeyPrefix = (name: string) =>
  Effect.acquireRelease(
    Effect.sync(() => `pag-test-${name}-${process.pid}-${Math.random().toString(36).slice(2, 8)}:`),
    (prefix) => Effect.promise(() => removeKeysUnder(testRedisUrl, prefix))
  )

export interface FleetSettings {
  readonly redisUrl: string | undefined
  readonly keyPrefix: string
  readonly sports?: Partial<SportsConfig["Service"]>
  readonly catalog?: Partial<SportsCatalogConfig["Service"]>
  readonly stream?: Partial<StreamConfig["Service"]>
  readonly fleetSize?: number
  /** Runs the catalog's schedule (full and live refreshes). */
  readonly scheduled?: boolean
  /** Process-wide settings (AUTH_FAILURE_LIMIT, say). */
  readonly app?: Partial<AppConfig["Service"]>
}

/**
 * One instance of the service with its own pool, caches, clients and server,
 * on the test's database, the fake provider and (with `redisUrl`) a Redis.
 * Build several in one scope: they are a fleet behind no common address.
 */
export const FleetInstance = (settings: FleetSettings) => {
  const config = Layer.mergeAll(
    TestConfig({ app: settings.app ?? {} }),
    Layer.succeed(
      SharedStoreConfig,
      testSharedStoreConfig({
        redisUrl: settings.redisUrl === undefined ? Option.none() : Option.some(Redacted.make(settings.redisUrl)),
        keyPrefix: settings.keyPrefix,
        fleetSize: settings.fleetSize ?? 1
      })
    ),
    Layer.succeed(
      SportsCatalogConfig,
      testCatalogConfig({ sportIds: [1], cacheTtl: Duration.zero, ...settings.catalog })
    ),
    Layer.succeed(StreamConfig, testStreamConfig(settings.stream)),
    Layer.effect(
      SportsConfig,
      Effect.map(Effect.service(FakeUpstream), (fake) =>
        testSportsConfig({
          provider: "betsapi",
          timeout: Duration.seconds(2),
          betsapi: { baseUrl: fake.url, token: Option.some(Redacted.make("fleet-test")) },
          ...settings.sports
        }))
    )
  )
  const services = servicesLayer(WalletRepo.layerSql).pipe(
    Layer.provideMerge(TestDatabaseOnUrl),
    Layer.provideMerge(config)
  )
  const withSchedule = settings.scheduled === true ? CatalogSchedule.pipe(Layer.provideMerge(services)) : services
  return serveApp({ disableListenLog: true }).pipe(
    Layer.provide(MaxBodySizeLive),
    Layer.provideMerge(NodeHttpServer.layerTest),
    Layer.provideMerge(withSchedule),
    Layer.fresh
  )
}

/** An instance's address, for plain `fetch`. */
export const baseUrlOf = Effect.map(Effect.service(HttpServer.HttpServer), (server) => {
  const address = server.address
  return "port" in address ? `http://127.0.0.1:${address.port}` : "http://invalid"
})

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

/** One GET to an instance, with the partner's token. */
export const get = (baseUrl: string, path: string, token?: string): Effect.Effect<Answer> =>
  Effect.promise(async () => {
    const response = await fetch(
      `${baseUrl}${path}`,
      token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }
    )
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) }
  })

/**
 * A TCP proxy to Redis on a port of its own, which the test can cut (every
 * connection dropped, the port closed) and open again: Redis "stops" for the
 * instances behind it while the machine's Redis goes on serving everyone else.
 */
export const RedisProxy = (target = testRedisUrl): Effect.Effect<
  {
    readonly url: string
    readonly cut: Effect.Effect<void>
    readonly restore: Effect.Effect<void>
  },
  never,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const { hostname, port } = new URL(target)
    const sockets = new Set<Socket>()
    let server: Server | undefined
    const listen = (onPort: number) =>
      Effect.promise(() =>
        new Promise<number>((resolve) => {
          server = createServer((client) => {
            const upstream = createConnection({ host: hostname, port: Number(port || 6379) })
            sockets.add(client).add(upstream)
            const drop = () => {
              client.destroy()
              upstream.destroy()
              sockets.delete(client)
              sockets.delete(upstream)
            }
            client.on("error", drop).on("close", drop)
            upstream.on("error", drop).on("close", drop)
            client.pipe(upstream).pipe(client)
          })
          server.listen(onPort, "127.0.0.1", () => {
            const address = server!.address()
            resolve(typeof address === "object" && address !== null ? address.port : 0)
          })
        })
      )
    const cut = Effect.promise(() =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        sockets.clear()
        if (server === undefined) resolve()
        else server.close(() => resolve())
        server = undefined
      })
    )
    const proxyPort = yield* listen(0)
    yield* Effect.addFinalizer(() => cut)
    return { url: `redis://127.0.0.1:${proxyPort}`, cut, restore: Effect.asVoid(listen(proxyPort)) }
  })
