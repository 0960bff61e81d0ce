import { Deferred, type Duration, Effect, Exit, Fiber, Stream } from "effect"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import * as net from "node:net"

/** A port nothing listens on right now, for a process about to start. */
export const freePort = () =>
  Effect.promise(() =>
    new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as net.AddressInfo
        server.close(() => resolve(port))
      })
    })
  )

export interface RunningProcess {
  readonly handle: ChildProcessSpawner.ChildProcessHandle
  /** Every line the process wrote so far, stdout and stderr. */
  readonly output: Array<string>
  /** Done once the process's output has ended (every line it wrote is in `output`). */
  readonly outputEnded: Effect.Effect<void>
}

/**
 * Starts `node <args>` and waits until a line matches `ready`. Output keeps
 * being collected until the process ends; it is stopped with the scope.
 */
export const startNode = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>,
  ready: RegExp,
  timeout: Duration.Input = "60 seconds",
  cwd?: string
) => startCommand(process.execPath, args, env, ready, timeout, cwd)

/**
 * Starts `command <args>` in a process group of its own (as a terminal runs a
 * foreground job) and waits until a line matches `ready`; see startNode.
 */
export const startCommand = (
  command: string,
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>,
  ready: RegExp,
  timeout: Duration.Input = "60 seconds",
  cwd?: string
) =>
  Effect.gen(function*() {
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    const handle = yield* spawner.spawn(ChildProcess.make(command, args, { env, extendEnv: true, cwd, detached: true }))
    const output: Array<string> = []
    const started = yield* Deferred.make<void>()
    const reading = yield* handle.all.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) =>
        Effect.sync(() => {
          output.push(line)
          if (ready.test(line)) Deferred.doneUnsafe(started, Exit.void)
        })
      ),
      // Output that ends before the ready line is a process that ended: said at once, not after the whole time-out.
      Effect.ensuring(Effect.sync(() =>
        Deferred.doneUnsafe(
          started,
          Exit.die(new Error(`${args.join(" ")} ended before it was ready:\n${output.join("\n")}`))
        )
      )),
      Effect.forkScoped
    )
    yield* Deferred.await(started).pipe(
      Effect.timeoutOrElse({
        duration: timeout,
        orElse: () => Effect.die(new Error(`${args.join(" ")} did not start:\n${output.join("\n")}`))
      })
    )
    return { handle, output, outputEnded: Effect.ignore(Fiber.join(reading)) } satisfies RunningProcess
  })
