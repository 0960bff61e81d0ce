import { NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Effect, Exit, Layer, Runtime } from "effect"
import { AppConfig } from "./platform/AppConfig.ts"
import * as Logging from "./platform/Logging.ts"
import { ServerLive } from "./server.ts"

/** A stop that was asked for (SIGTERM, Ctrl-C) and drained cleanly is a success, not an error exit. */
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

Layer.launch(ServerLive).pipe(
  Effect.provide(Logging.layer.pipe(Layer.provide(AppConfig.layer))),
  Effect.catchTag("ConfigError", (error) =>
    Effect.andThen(
      Console.error(`Invalid configuration: ${error.message}`),
      Effect.sync(() => process.exit(1))
    )),
  NodeRuntime.runMain({ teardown })
)
