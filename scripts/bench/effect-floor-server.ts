/**
 * The framework floor: effect's HTTP router answering a fixed JSON body,
 * with no API contract, auth, validation or logging. The gap between it and
 * the raw node:http baseline is the HTTP stack's; the gap between it and the
 * service is the service's own work.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"

// The body comes in a file: a large one does not fit in the environment.
const body = readFileSync(process.env.BODY_FILE ?? "/dev/null", "utf8") || "{}"
const port = Number(process.env.PORT ?? 0)

const Routes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  yield* router.add(
    "*",
    "*",
    Effect.sync(() => HttpServerResponse.text(body, { contentType: "application/json" }))
  )
}))

Layer.launch(
  HttpRouter.serve(Routes, { disableLogger: true }).pipe(
    Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
  )
).pipe(NodeRuntime.runMain)
