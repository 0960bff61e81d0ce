/**
 * The contract floor: effect's HttpApi answering a fixed JSON body on
 * GET /api/partner/v1/status, with its success encoded through a schema, but
 * no auth, no database and no access log. Between the router floor and this
 * lies the cost of the HttpApi machinery itself; between this and the
 * service, the service's own work (auth, envelope, logging).
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"

// The body comes in a file: a large one does not fit in the environment.
const body: unknown = JSON.parse(readFileSync(process.env.BODY_FILE ?? "/dev/null", "utf8") || "{}")
const port = Number(process.env.PORT ?? 0)

const FloorApi = HttpApi.make("floor").add(
  HttpApiGroup.make("account").add(
    HttpApiEndpoint.get("status", "/api/partner/v1/status", { success: Schema.Unknown })
  )
)

const AccountHandlers = HttpApiBuilder.group(
  FloorApi,
  "account",
  (handlers) => handlers.handle("status", () => Effect.succeed(body))
)

Layer.launch(
  HttpRouter.serve(HttpApiBuilder.layer(FloorApi).pipe(Layer.provide(AccountHandlers)), { disableLogger: true }).pipe(
    Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
  )
).pipe(NodeRuntime.runMain)
