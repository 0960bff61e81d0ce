import { NodeServices } from "@effect/platform-node"
import { Effect, Stream } from "effect"
import { freePort } from "../../scripts/bench/processes.ts"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import * as fs from "node:fs/promises"
import * as path from "node:path"

export interface CommandResult {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

const collect = (stream: Stream.Stream<Uint8Array, unknown>) => stream.pipe(Stream.decodeText(), Stream.mkString)

/** Runs a script of the project on this node, as an operator would with `npm run`. */
export const runNode = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  runCommand(process.execPath, args, env)

/** Runs `command <args>` to its end; with `npm`, the project's scripts as an operator types them. */
export const runCommand = (command: string, args: ReadonlyArray<string>, env: Record<string, string | undefined>) =>
  Effect.gen(function*() {
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    const handle = yield* spawner.spawn(ChildProcess.make(command, args, { env, extendEnv: true }))
    const [stdout, stderr, exitCode] = yield* Effect.all(
      [collect(handle.stdout), collect(handle.stderr), handle.exitCode],
      { concurrency: "unbounded" }
    )
    return { exitCode: Number(exitCode), stdout, stderr } satisfies CommandResult
  }).pipe(Effect.scoped, Effect.provide(NodeServices.layer), Effect.orDie)

export { freePort, type RunningProcess, startCommand, startNode } from "../../scripts/bench/processes.ts"

/**
 * Starts a service on a port found free, and again on another when that one was taken before the service bound it
 * (EADDRINUSE: a service takes seconds to start, and another test's socket got the port first, which a busy run
 * sees), up to three tries. The port it listens on comes with what `start` gives.
 */
export const onFreePort = <A extends object, E, R>(
  start: (port: number) => Effect.Effect<A, E, R>,
  tries = 3
): Effect.Effect<A & { readonly port: number }, E, R> =>
  Effect.flatMap(freePort(), (port) =>
    start(port).pipe(
      Effect.map((started) => ({ ...started, port })),
      Effect.catchDefect((defect) =>
        tries > 1 && String(defect).includes("EADDRINUSE") ? onFreePort(start, tries - 1) : Effect.die(defect)
      )
    ))

/** Whether a process with this pid is still running. */
export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The pid in the embedded PostgreSQL's postmaster.pid under a data directory, if it has one. */
export const postmasterPid = (dataDir: string) =>
  Effect.promise(() =>
    fs.readFile(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").then(
      (text) => Number.parseInt(text.split("\n")[0], 10),
      () => undefined
    )
  )
