/**
 * The typed client as the package a partner installs (packages/partner-client): `npm pack` builds it (JavaScript and
 * .d.ts, from the contract's sources), the tarball is installed with effect into a directory of its own as a partner's
 * project would, the package's example type-checks against the installed types and, run with node, prints what the
 * running service (a test token: the sandbox's catalog) really has.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { HttpServer } from "effect/http"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { runCommand, runNode } from "../support/process.ts"
import { live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { givenPartner, givenSyncedCatalog, TestApp } from "../support/TestApp.ts"

const root = path.resolve(import.meta.dirname, "../..")
const packageDir = path.join(root, "packages/partner-client")
const readJson = (file: string) =>
  Effect.promise(() => fs.readFile(file, "utf8").then((text) => JSON.parse(text) as Record<string, any>))

/** A directory of its own for the test, removed after it. */
const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "partner-client-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

/** Runs a command to its end; a non-zero exit fails the test with what it printed. */
const succeeds = (command: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.map(command === "node" ? runNode(args, env) : runCommand(command, args, env), (result) => {
    assert.strictEqual(result.exitCode, 0, `${command} ${args.join(" ")}:\n${result.stdout}\n${result.stderr}`)
    return result.stdout
  })

layer(TestApp(), live)("the client package", (it) => {
  it.effect(
    "npm pack gives JS and types; installed from the tarball, its example lists a sandbox provider's games",
    () =>
      Effect.gen(function*() {
        const service = yield* readJson(path.join(root, "package.json"))
        const manifest = yield* readJson(path.join(packageDir, "package.json"))
        assert.strictEqual(manifest.version, service.version, "the package's version is the service's")
        assert.deepStrictEqual(manifest.peerDependencies, { effect: service.dependencies.effect })
        // The install command its README and the partner guide show names this version and effect's.
        const install = `npm install ./partner-api-client-${service.version}.tgz effect@${service.dependencies.effect}`
        for (const doc of [path.join(packageDir, "README.md"), path.join(root, "docs/partner-guide/README.md")]) {
          assert.include(yield* Effect.promise(() => fs.readFile(doc, "utf8")), install, doc)
        }

        const dir = yield* tempDir
        const [packed] = JSON.parse(
          yield* succeeds("npm", ["pack", packageDir, "--pack-destination", dir, "--json"])
        ) as Array<{ filename: string; size: number; files: Array<{ path: string }> }>
        const files = packed.files.map((file) => file.path)
        for (const file of ["dist/client/PartnerClient.js", "dist/client/PartnerClient.d.ts", "example.ts"]) {
          assert.include(files, file)
        }
        // JavaScript and declarations only (and the example): no source a partner's node would have to strip.
        assert.deepStrictEqual(
          files.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts") && file !== "example.ts"),
          []
        )
        // The contract's closure, and nothing of the server's areas.
        assert.deepStrictEqual(
          [...new Set(files.filter((file) => file.startsWith("dist/")).map((file) => file.split("/")[1]))].sort(),
          ["api", "client", "domain"]
        )

        // A partner's project: the tarball and the effect it names as its peer.
        const app = path.join(dir, "app")
        yield* Effect.promise(() => fs.mkdir(app))
        yield* Effect.promise(() =>
          fs.writeFile(path.join(app, "package.json"), JSON.stringify({ private: true, type: "module" }))
        )
        yield* succeeds("npm", [
          "install",
          "--prefix",
          app,
          "--prefer-offline",
          "--no-audit",
          "--no-fund",
          "--loglevel=error",
          path.join(dir, packed.filename),
          `effect@${service.dependencies.effect}`
        ])
        const example = path.join(app, "example.ts")
        yield* Effect.promise(() => fs.copyFile(path.join(app, "node_modules/@partner-api/client/example.ts"), example))

        // The example type-checks against the installed .d.ts (this project's tsc and node types, the package's own).
        yield* Effect.promise(() =>
          fs.writeFile(
            path.join(app, "tsconfig.json"),
            JSON.stringify({
              compilerOptions: {
                target: "ES2024",
                lib: ["ES2024"],
                module: "NodeNext",
                moduleResolution: "NodeNext",
                strict: true,
                noEmit: true,
                skipLibCheck: true,
                typeRoots: [path.join(root, "node_modules/@types")],
                types: ["node"]
              },
              files: ["example.ts"]
            })
          )
        )
        yield* succeeds("node", [path.join(root, "node_modules/typescript/bin/tsc"), "-p", app])

        // Run against the service with a test token: it finds the sandbox's providers itself.
        yield* givenSyncedCatalog
        const { test } = yield* givenPartner({ name: "Package Co" })
        const server = yield* HttpServer.HttpServer
        const client = yield* partnerClient(test.token)
        const first = (yield* client.casino.providers()).data.list[0]
        const { data } = yield* client.casino.games({ query: { provider: first.provider } })
        assert.isAbove(data.meta.total, 0)
        const printed = yield* succeeds("node", [example], {
          PARTNER_API_URL: HttpServer.formatAddress(server.address),
          PARTNER_API_TOKEN: test.token
        })
        assert.include(printed, "partner: Package Co (test)")
        assert.include(printed, `the first: ${first.provider}`)
        assert.include(printed, `games of ${first.provider}: ${data.meta.total}; ${data.games[0].name}`)
        assert.include(printed, "sports provider: sandbox (")
      }).pipe(Effect.scoped),
    { timeout: 240_000 }
  )
})
