import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { AppConfig } from "./platform/AppConfig.ts"
import * as Logging from "./platform/Logging.ts"
import { ServerLive } from "./server.ts"

Layer.launch(ServerLive).pipe(
  Effect.provide(Logging.layer.pipe(Layer.provide(AppConfig.layer))),
  Effect.catchTag("ConfigError", (error) =>
    Effect.andThen(
      Console.error(`Invalid configuration: ${error.message}`),
      Effect.sync(() => process.exit(1))
    )),
  NodeRuntime.runMain
)
