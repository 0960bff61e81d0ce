import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Exit, Layer, Runtime } from "effect"
import { AppConfig } from "./platform/AppConfig.ts"
import * as Logging from "./platform/Logging.ts"
import { launchWithin } from "./platform/Shutdown.ts"
import { ServerLive } from "./server.ts"

/** A stop that was asked for (SIGTERM, Ctrl-C) and drained cleanly is a success, not an error exit. */
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

// The service until a stop, which SHUTDOWN_TIMEOUT bounds (past it: exit 1).
Effect.flatMap(Effect.service(AppConfig), (config) => launchWithin(ServerLive, config.shutdownTimeout)).pipe(
  Effect.provide(Logging.layer.pipe(Layer.provideMerge(AppConfig.layer))),
  Effect.catchTag("ConfigError", (error) =>
    Effect.andThen(
      Console.error(`Invalid configuration: ${error.message}`),
      Effect.sync(() => process.exit(1))
    )),
  NodeRuntime.runMain({ teardown })
)
