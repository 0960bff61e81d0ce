/**
 * The operator's admin CLI: `npm run -s admin -- <command>`.
 * It uses the service's own configuration and database (the embedded one,
 * shared with a running service, when DATABASE_URL is unset). Results are
 * JSON on stdout; logs and errors go to stderr; failures exit non-zero.
 * The commands are in ./admin/Cli.ts, where tests run them in-process.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { main } from "./admin/Cli.ts"

main.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
