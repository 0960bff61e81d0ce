/**
 * The admin CLI run in-process, as `node scripts/admin.ts <args>` would run it against the test file's
 * database: what it prints on stdout and stderr, and the exit code the process would end with. A node
 * start per command cost seconds; the entry point itself is proved once, by a test that spawns it.
 */
import { NodeServices } from "@effect/platform-node"
import { Cause, ConfigProvider, Console, Effect, Layer, Runtime } from "effect"
import { TerminalCapabilities } from "effect/cli"
import { Console as NodeConsole } from "node:console"
import { Writable } from "node:stream"
import { runAdmin } from "../../scripts/admin/Cli.ts"
import { ConfigLive } from "../../src/server.ts"
import type { CommandResult } from "./process.ts"
import { TestDatabaseUrl } from "./TestDatabase.ts"

/** A stream that keeps what is written to it, as a pipe to the parent process would. */
const sink = (chunks: Array<string>) =>
  new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk))
      done()
    }
  })

/**
 * `admin <args>` with the environment `env` on top of this process's (as a child process would inherit
 * it) and DATABASE_URL naming the test file's database, whose pool it shares.
 */
export const adminCli = (env: Record<string, string> = {}) => (...args: Array<string>) =>
  Effect.gen(function*() {
    const url = yield* TestDatabaseUrl
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    // Node's own Console over the two streams: the same formatting as on a real stdout and stderr.
    const console = new NodeConsole({ stdout: sink(stdout), stderr: sink(stderr), colorMode: false })
    const provider = ConfigProvider.fromEnv({
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: "Warn", ...env } as Record<string, string>
    })
    const exit = yield* runAdmin(args).pipe(
      Effect.provide(ConfigLive.pipe(Layer.provide(ConfigProvider.layer(provider)))),
      Effect.provide(NodeServices.layer),
      Effect.provideService(ConfigProvider.ConfigProvider, provider),
      // Piped output, as under a child process: no colours, no prompts.
      Effect.provideService(TerminalCapabilities.TerminalCapabilities, {
        canColor: false,
        canAnimate: false,
        canPrompt: false
      }),
      Effect.provideService(Console.Console, console),
      // Its own layers, as in a process of its own: without this, the command's layers (Partners, the callback
      // URL policy, ...) would be the test service's already-built instances, with the test's settings.
      Effect.provideService(Layer.CurrentMemoMap, Layer.makeMemoMapUnsafe()),
      Effect.exit
    )
    // As NodeRuntime.runMain ends the process: a failure the CLI has not printed yet is logged, and the
    // exit code follows the runtime's rules (0, 1 for a failure, 130 for an interruption).
    if (
      exit._tag === "Failure" && !Cause.hasInterruptsOnly(exit.cause) &&
      Runtime.getErrorReported(Cause.squash(exit.cause))
    ) {
      console.error(Cause.pretty(exit.cause))
    }
    let exitCode = 0
    Runtime.defaultTeardown(exit, (code) => {
      exitCode = code
    })
    return { exitCode, stdout: stdout.join(""), stderr: stderr.join("") } satisfies CommandResult
  })

/** The CLI as the tests usually run it: callback URLs on private addresses allowed (these machines have no public DNS). */
export const admin = adminCli({ PARTNER_CALLBACK_ALLOW_PRIVATE: "true" })
