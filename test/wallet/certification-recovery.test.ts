/**
 * A certification run that ends before its last case leaves money with the test player (the free round's win that
 * funds the run, a case's stake): recovery puts the player back where the run found it, on a later start. Here a run
 * is stopped mid-way with its instance, and another run's process is killed (SIGKILL) mid-way; after each, a starting
 * instance's recovery refunds the difference once, and the partner's wallet holds exactly what it held before the run.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { spawn } from "node:child_process"
import type { Certification } from "../../src/domain/Certification.ts"
import { CertificationRecovery, recoveryEventId } from "../../src/wallet/certification/CertificationRecovery.ts"
import { Certifications } from "../../src/wallet/certification/Certifications.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { givenCertifiable } from "../support/CertificationWallet.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { eventually, live } from "../support/live.ts"
import { TestDatabaseUrl } from "../support/TestDatabase.ts"
import { AnotherInstance, TestApp } from "../support/TestApp.ts"

const books = new PartnerBooks()
// The fake knows only the players it was told of: an unknown one is `unknown_player`, as a wallet must say.
books.knownPlayersOnly = true
const timeout = Duration.seconds(10)
const App = TestApp({ callbacks: { timeout } }).pipe(Layer.provideMerge(FakeUpstream.layer(books.script)))

const runOf = (id: string) =>
  Effect.flatMap(Effect.service(Certifications), (service) => service.find(id)).pipe(Effect.map(Option.getOrThrow))

/** The partner's latest run, once there is one. */
const latestRunOf = (partnerId: number) =>
  eventually(
    Effect.flatMap(Effect.service(Certifications), (service) => service.list(partnerId, 1)),
    (runs) => runs.length === 1,
    "the run recorded"
  ).pipe(Effect.map((runs) => runs[0].id))

/** Until the run has played its first cases: the free round's win is then with the test player. */
const midway = (id: string) => eventually(runOf(id), (run) => run.cases.length >= 3, "the run's first cases")

/** An instance starting: its recovery runs at once; until the run says it was recovered. */
const recoveredBy = (id: string) =>
  Effect.scoped(Effect.gen(function*() {
    yield* Layer.build(Layer.fresh(CertificationRecovery))
    return yield* eventually(
      runOf(id),
      (run) => run.summary?.includes("Recovered") === true,
      "the run recovered"
    )
  }))

const assertPutBack = (run: Certification, external: string) => {
  assert.strictEqual(books.balanceOf(external), 5_000n, "the wallet holds what it held before the run")
  assert.match(
    run.summary!,
    /Recovered: the test player was at [0-9.]+ BRL, not the 50\.00 BRL the run found; a refund of/
  )
  assert.include(run.summary!, "put it back.")
  assert.strictEqual(books.receivedFor(recoveryEventId(run.id)).length, 1, "one refund")
}

layer(App, live)("wallet certification recovery", (it) => {
  it.effect("a run stopped with its instance is recovered on the next start: the float and the stake taken back", () =>
    Effect.gen(function*() {
      const { external, partner } = yield* givenCertifiable(books, "Recovered", {
        testCallbackUrl: `${(yield* FakeUpstream).url}/wallet`
      })
      books.behaviour = "slow"
      books.delayMillis = 100
      const started = yield* Effect.scoped(Effect.gen(function*() {
        const other = Context.get(yield* Layer.build(AnotherInstance({ callbacks: { timeout } })), Certifications)
        const run = yield* Effect.orDie(other.start(partner.id, external, { name: "test", via: "console" }))
        yield* midway(run.id)
        return run
      })).pipe(Effect.ensuring(Effect.sync(() => (books.behaviour = "fine"))))
      const stopped = yield* runOf(started.id)
      assert.strictEqual(stopped.status, "interrupted")
      assert.notStrictEqual(books.balanceOf(external), 5_000n, "the stop left money with the test player")

      const recovered = yield* recoveredBy(started.id)
      assertPutBack(recovered, external)
      assert.strictEqual(recovered.status, "interrupted", "still no verdict")

      // Another start finds nothing more to do: the refund is never sent twice.
      yield* Effect.scoped(Layer.build(Layer.fresh(CertificationRecovery)))
      assert.strictEqual(books.receivedFor(recoveryEventId(started.id)).length, 1)
    }))

  it.effect("a run whose process is killed (SIGKILL) is recovered once it is seen dead: the wallet ends where it started", () =>
    Effect.gen(function*() {
      const { external, partner } = yield* givenCertifiable(books, "Recovered", {
        testCallbackUrl: `${(yield* FakeUpstream).url}/wallet`
      })
      books.behaviour = "slow"
      books.delayMillis = 100
      const url = yield* TestDatabaseUrl
      const child = spawn(
        process.execPath,
        ["scripts/admin.ts", "partners", "certify", partner.slug, "--player", external],
        {
          env: { ...process.env, DATABASE_URL: url, PARTNER_CALLBACK_ALLOW_PRIVATE: "true", LOG_LEVEL: "Warn" },
          stdio: "ignore"
        }
      )
      const id = yield* latestRunOf(partner.id).pipe(Effect.onInterrupt(() => Effect.sync(() => child.kill("SIGKILL"))))
      yield* midway(id)
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGKILL")
      yield* Effect.promise(() => exited)
      books.behaviour = "fine"
      assert.strictEqual((yield* runOf(id)).status, "running", "a killed process closes nothing")
      assert.notStrictEqual(books.balanceOf(external), 5_000n, "the crash left money with the test player")

      // Time passes: nothing touches the run for longer than a run could take, so it is seen dead.
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE wallet_certifications SET updated_at = now() - interval '1 hour' WHERE public_id = ${id}`
      const recovered = yield* recoveredBy(id)
      assert.strictEqual(recovered.status, "interrupted")
      assertPutBack(recovered, external)
    }).pipe(Effect.ensuring(Effect.sync(() => (books.behaviour = "fine")))))
})
