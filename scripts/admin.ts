/**
 * The operator's admin CLI: `npm run -s admin -- <command>`.
 * It uses the service's own configuration and database (the embedded one,
 * shared with a running service, when DATABASE_URL is unset). Results are
 * JSON on stdout; logs and errors go to stderr; failures exit non-zero.
 * The commands are in ./admin/Cli.ts, where tests run them in-process.
 */
import { enableCompileCache } from "node:module"

// Node keeps the compiled modules (the TypeScript stripped of its types, and V8's code) in the system's temporary
// folder: a command then starts in about two thirds of the CPU time. Only what is imported after this call is
// cached, hence the dynamic imports below.
enableCompileCache()

const [{ Effect }, NodeRuntime, NodeServices, { main }] = await Promise.all([
  import("effect"),
  import("@effect/platform-node/NodeRuntime"),
  import("@effect/platform-node/NodeServices"),
  import("./admin/Cli.ts")
])

main.pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
