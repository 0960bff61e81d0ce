/**
 * One configuration for the service and its CLI (issue 37, part 3): `npm start` and `npm run admin` both read
 * `.env` in the folder they start in, a variable of the environment wins over the file, and what the CLI prints
 * uses the service's public URL. The CLI runs as package.json's `admin` script starts it, in a folder of the test's.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { live } from "../support/live.ts"
import { TestDatabaseUrl, TestDatabaseUrlLive } from "../support/TestDatabase.ts"

const root = path.resolve(import.meta.dirname, "../..")
const scripts: Record<string, string> = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).scripts

/** A script's `node …` arguments, with the project's files made absolute so it can start in another folder. */
const nodeArgs = (script: string) =>
  script.replace(/^exec /, "").split(" ").slice(1).map((arg) =>
    /^\.?\/?(src|scripts)\//.test(arg) ? path.join(root, arg) : arg
  )

// What this process's environment would otherwise give the child, and the file must be free to set.
const fromFileOnly = ["DATABASE_URL", "PUBLIC_URL", "PORT", "PARTNER_CALLBACK_ALLOW_PRIVATE", "LOG_LEVEL"]

/** `npm run admin -- <args>` as it runs in `folder`, with `env` set in its environment. */
const adminIn = (folder: string, env: Record<string, string> = {}) => (...args: Array<string>) =>
  Effect.gen(function*() {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !fromFileOnly.includes(name))
    ) as Record<string, string>
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    const handle = yield* spawner.spawn(
      ChildProcess.make(process.execPath, [...nodeArgs(scripts.admin), ...args], {
        cwd: folder,
        env: { ...inherited, ...env },
        extendEnv: false
      })
    )
    const text = (stream: Stream.Stream<Uint8Array, unknown>) => stream.pipe(Stream.decodeText(), Stream.mkString)
    const [stdout, stderr, exitCode] = yield* Effect.all([text(handle.stdout), text(handle.stderr), handle.exitCode], {
      concurrency: "unbounded"
    })
    return { exitCode: Number(exitCode), stdout, stderr }
  }).pipe(Effect.scoped, Effect.provide(NodeServices.layer), Effect.orDie)

layer(TestDatabaseUrlLive, live)("one configuration for the service and its CLI", (it) => {
  it("`npm start` and `npm run admin` load .env the same way", () => {
    const loader = /--import \.\/src\/platform\/EnvFile\.ts /
    assert.match(scripts.start, loader)
    assert.match(scripts.admin, loader)
  })

  it.effect("the CLI reads .env, prints links on PUBLIC_URL, and a variable of the environment wins", () =>
    Effect.gen(function*() {
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), "admin-env-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(folder, { recursive: true, force: true })))
      // The database comes from the file too: the child's environment has no DATABASE_URL.
      fs.writeFileSync(
        path.join(folder, ".env"),
        `DATABASE_URL=${yield* TestDatabaseUrl}\nPUBLIC_URL=https://partners.from-env-file.example\nLOG_LEVEL=warn\n`
      )
      const admin = adminIn(folder)

      const created = yield* admin("partners", "create", "--name", "Env Co")
      assert.strictEqual(created.exitCode, 0, created.stderr)
      const invited = yield* admin(
        "partners",
        "invite-user",
        "env-co",
        "--email",
        "ops@env.example",
        "--role",
        "viewer"
      )
      assert.strictEqual(invited.exitCode, 0, invited.stderr)
      assert.match(JSON.parse(invited.stdout).invitation_url, /^https:\/\/partners\.from-env-file\.example\/portal\//)

      const overridden = yield* adminIn(folder, { PUBLIC_URL: "https://partners.from-environment.example" })(
        "partners",
        "invite-user",
        "env-co",
        "--email",
        "dev@env.example",
        "--role",
        "developer"
      )
      assert.strictEqual(overridden.exitCode, 0, overridden.stderr)
      assert.match(JSON.parse(overridden.stdout).invitation_url, /^https:\/\/partners\.from-environment\.example\//)

      // A wallet on this machine: refused without PARTNER_CALLBACK_ALLOW_PRIVATE, saying the service needs it too.
      const refused = yield* admin("partners", "set", "env-co", "--callback-url", "http://127.0.0.1:9/wallet")
      assert.notStrictEqual(refused.exitCode, 0)
      assert.strictEqual(refused.stdout, "")
      assert.match(refused.stderr, /PARTNER_CALLBACK_ALLOW_PRIVATE=true for the service as well as this CLI/)

      // Allowed on this command only: stored, with a note that the service must allow it too.
      const allowed = yield* adminIn(folder, { PARTNER_CALLBACK_ALLOW_PRIVATE: "true" })(
        "partners",
        "set",
        "env-co",
        "--callback-url",
        "http://127.0.0.1:9/wallet"
      )
      assert.strictEqual(allowed.exitCode, 0, allowed.stderr)
      assert.strictEqual(JSON.parse(allowed.stdout).slug, "env-co")
      assert.match(allowed.stderr, /PARTNER_CALLBACK_ALLOW_PRIVATE=true, which the service needs too/)
    }).pipe(Effect.scoped))
})
