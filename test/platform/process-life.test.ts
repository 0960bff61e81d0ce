/**
 * Stopping `npm start` on the embedded database as people do: Ctrl-C in a
 * terminal (SIGINT to the whole foreground process group: npm, the service
 * and anything they started in that group) and `kill <npm pid>` (SIGTERM to
 * npm alone). Either way everything stops, cleanly and quietly.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, it } from "@effect/vitest"
import { Effect, FileSystem } from "effect"
import * as net from "node:net"
import { isAlive, onFreePort, postmasterPid, startCommand } from "../support/process.ts"

const portAnswers = (port: number) =>
  Effect.promise(() =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1")
      socket.once("connect", () => {
        socket.destroy()
        resolve(true)
      })
      socket.once("error", () => resolve(false))
    })
  )

/** Runs `npm start` on the embedded database under `dataDir` until `stop` is sent, and checks how it ended. */
const startAndStop = (dataDir: string, stop: (npmPid: number) => void) =>
  Effect.gen(function*() {
    const { handle, output, outputEnded, port } = yield* onFreePort((port) =>
      startCommand("npm", ["start"], {
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: undefined,
        LOG_LEVEL: "Info"
      }, /Listening on/)
    )
    const postmaster = yield* postmasterPid(dataDir)
    assert.isDefined(postmaster, output.join("\n"))
    assert.isTrue(yield* portAnswers(port))

    stop(Number(handle.pid))
    const exitCode = Number(yield* handle.exitCode.pipe(Effect.timeout("30 seconds")))
    yield* outputEnded

    const transcript = output.join("\n")
    assert.strictEqual(exitCode, 0, transcript)
    assert.isFalse(output.some((line) => /error|unhandled|exception/i.test(line)), transcript)
    assert.isTrue(output.some((line) => line.includes("Embedded PostgreSQL stopped")), transcript)
    // Nothing is left running: no service, no PostgreSQL, no listener.
    assert.isFalse(isAlive(postmaster!), `PostgreSQL ${postmaster} still runs\n${transcript}`)
    assert.isUndefined(yield* postmasterPid(dataDir))
    assert.isFalse(yield* portAnswers(port))
    assert.throws(() => process.kill(-Number(handle.pid), 0), /ESRCH/, "a process of the group is left")
  })

it.live(
  "Ctrl-C and kill of npm start: exit 0, no error lines, the service and its PostgreSQL gone",
  () =>
    Effect.gen(function*() {
      const files = yield* FileSystem.FileSystem
      const dataDir = yield* files.makeTempDirectoryScoped({ prefix: "partner-api-signals-" })
      yield* files.chmod(dataDir, 0o755) // the cluster's own user (postgres, when run as root) must reach it

      // A terminal's Ctrl-C: SIGINT to every process of the foreground group.
      yield* Effect.scoped(startAndStop(dataDir, (pid) => process.kill(-pid, "SIGINT")))
      // `kill <pid of npm>`: SIGTERM to npm only, which must pass it on.
      yield* Effect.scoped(startAndStop(dataDir, (pid) => process.kill(pid, "SIGTERM")))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)),
  { timeout: 180_000 }
)
