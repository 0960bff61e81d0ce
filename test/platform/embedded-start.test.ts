/**
 * The embedded default, end to end: `node src/main.ts` with no DATABASE_URL,
 * as `npm start` runs it on a fresh clone.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, it } from "@effect/vitest"
import { Effect, FileSystem } from "effect"
import { freePort, isAlive, postmasterPid, startNode } from "../support/process.ts"

/** Starts the service; resolves once it listens, with the demo token if it printed one. */
const startService = (dataDir: string, port: number) =>
  Effect.map(
    startNode(
      ["src/main.ts"],
      { DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", DATABASE_URL: undefined },
      /Listening on/
    ),
    ({ handle, output }) => ({
      handle,
      output,
      token: output.map((line) => /live: (pak_live_[A-Za-z0-9_-]{43})/.exec(line)?.[1]).find((found) =>
        found !== undefined
      )
    })
  )

const status = (port: number, token: string) =>
  Effect.promise(async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/partner/v1/status`, {
      headers: { authorization: `Bearer ${token}` }
    })
    return { status: response.status, body: (await response.json()) as { partner: { slug: string } } }
  })

const waitUntil = (condition: () => Effect.Effect<boolean>, what: string) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 30_000
    while (!(yield* condition())) {
      if (Date.now() > deadline) return yield* Effect.die(`timed out waiting for ${what}`)
      yield* Effect.sleep("100 millis")
    }
  })

it.live(
  "npm start with no database: serves the demo token, survives a kill -9, stops cleanly on SIGTERM",
  () =>
    Effect.gen(function*() {
      const files = yield* FileSystem.FileSystem
      const dataDir = yield* files.makeTempDirectoryScoped({ prefix: "partner-api-start-" })
      // The cluster's own user (postgres, when run as root) must reach it.
      yield* files.chmod(dataDir, 0o755)
      const port = yield* freePort()

      // First start: a cluster is created and a demo partner printed once.
      const first = yield* startService(dataDir, port)
      assert.isDefined(first.token, first.output.join("\n"))
      const token = first.token!
      const answered = yield* status(port, token)
      assert.strictEqual(answered.status, 200)
      assert.strictEqual(answered.body.partner.slug, "demo")

      // SIGTERM: the service exits and takes its PostgreSQL with it.
      const firstPostmaster = yield* postmasterPid(dataDir)
      assert.isDefined(firstPostmaster)
      process.kill(Number(first.handle.pid), "SIGTERM")
      yield* first.handle.exitCode
      yield* waitUntil(() => Effect.sync(() => !isAlive(firstPostmaster!)), "the embedded PostgreSQL to stop")

      // Second start: same data, no new demo partner, the token still works.
      const second = yield* startService(dataDir, port)
      assert.isUndefined(second.token)
      assert.strictEqual((yield* status(port, token)).status, 200)

      // kill -9 leaves the postmaster behind; the next start must not be stopped by it.
      const orphan = yield* postmasterPid(dataDir)
      process.kill(Number(second.handle.pid), "SIGKILL")
      yield* Effect.exit(second.handle.exitCode) // fails: killed by a signal
      assert.isTrue(isAlive(orphan!), "the killed run left its PostgreSQL running")

      const third = yield* startService(dataDir, port)
      assert.strictEqual((yield* status(port, token)).status, 200)
      assert.isFalse(isAlive(orphan!), "the left-over PostgreSQL was stopped")
      const thirdPostmaster = yield* postmasterPid(dataDir)
      process.kill(Number(third.handle.pid), "SIGTERM")
      yield* third.handle.exitCode
      yield* waitUntil(() => Effect.sync(() => !isAlive(thirdPostmaster!)), "the embedded PostgreSQL to stop")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)),
  { timeout: 180_000 }
)
