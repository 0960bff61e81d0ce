import { assert, type Vitest } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { AdminAccountRepo, EmailTaken } from "../../src/identity/AdminAccountRepo.ts"
import { hashSession, newSessionSecrets } from "../../src/identity/Sessions.ts"

/**
 * What AdminAccountRepo promises, whichever form keeps it: run over PostgreSQL (layerSql) and over memory
 * (layerMemory) by admin-account-repo.test.ts, so the twin the console's handler specs stand on is shown to answer
 * as the SQL does. Every test names its own e-mails: the layer (and its rows) is shared by the file's tests.
 */
export const adminAccountRepoSpec = (it: Vitest.MethodsNonLive<AdminAccountRepo>) => {
  const unique = () => randomBytes(4).toString("hex")
  const insert = (email: string, role: "operator" | "viewer" = "operator", passwordHash = "scrypt$first") =>
    Effect.flatMap(Effect.service(AdminAccountRepo), (repo) => repo.insert({ email, role, passwordHash }))

  it.effect("a new account is enabled, its password one-time; an e-mail has one account", () =>
    Effect.gen(function*() {
      const repo = yield* AdminAccountRepo
      const email = `new-${unique()}@example.com`
      const account = yield* insert(email, "viewer")
      assert.deepStrictEqual([account.email, account.role, account.disabled], [email, "viewer", false])
      assert.isTrue(Number.isSafeInteger(account.id) && account.id > 0)
      const credentials = Option.getOrThrow(yield* repo.credentials(email))
      assert.deepStrictEqual(credentials.account, account)
      assert.deepStrictEqual([credentials.passwordHash, credentials.mustChangePassword], ["scrypt$first", true])
      assert.instanceOf(credentials.passwordSetAt, Date)
      const taken = yield* Effect.flip(insert(email, "operator", "scrypt$other"))
      assert.instanceOf(taken, EmailTaken)
      assert.strictEqual(taken.email, email)
      assert.strictEqual(Option.getOrThrow(yield* repo.findByEmail(email)).role, "viewer", "the first one stays")
      assert.isTrue(Option.isNone(yield* repo.findByEmail(`nobody-${unique()}@example.com`)))
      assert.isTrue(Option.isNone(yield* repo.credentials(`nobody-${unique()}@example.com`)))
    }))

  it.effect("accounts are listed by e-mail", () =>
    Effect.gen(function*() {
      const repo = yield* AdminAccountRepo
      const tag = unique()
      for (const name of ["carol", "alice", "bob"]) yield* insert(`${name}-${tag}@example.com`)
      const mine = (yield* repo.list).filter((account) => account.email.endsWith(`-${tag}@example.com`))
      assert.deepStrictEqual(mine.map((account) => account.email.split("-")[0]), ["alice", "bob", "carol"])
    }))

  it.effect("an update changes what it names and leaves the rest; an unknown e-mail changes nothing", () =>
    Effect.gen(function*() {
      const repo = yield* AdminAccountRepo
      const email = `update-${unique()}@example.com`
      const account = yield* insert(email, "viewer")
      const promoted = Option.getOrThrow(yield* repo.update(email, { role: "operator" }))
      assert.deepStrictEqual([promoted.id, promoted.role, promoted.disabled], [account.id, "operator", false])
      assert.isTrue(promoted.updatedAt.getTime() >= account.updatedAt.getTime())
      yield* repo.update(email, { passwordHash: "scrypt$second", mustChangePassword: false })
      const credentials = Option.getOrThrow(yield* repo.credentials(email))
      assert.deepStrictEqual([credentials.passwordHash, credentials.mustChangePassword, credentials.account.role], [
        "scrypt$second",
        false,
        "operator"
      ])
      const disabled = Option.getOrThrow(yield* repo.update(email, { disabled: true }))
      assert.deepStrictEqual([disabled.disabled, disabled.role], [true, "operator"])
      assert.deepStrictEqual(yield* repo.findByEmail(email), Option.some(disabled))
      assert.isTrue(Option.isNone(yield* repo.update(`nobody-${unique()}@example.com`, { disabled: true })))
    }))

  it.effect("a session is found by its hash until its end, not once its account is disabled; an account's sessions end together but the one kept", () =>
    Effect.gen(function*() {
      const repo = yield* AdminAccountRepo
      const email = `sessions-${unique()}@example.com`
      const account = yield* insert(email)
      const start = (ttl: Duration.Duration) =>
        Effect.gen(function*() {
          const secrets = newSessionSecrets()
          const idHash = hashSession(secrets.sessionId)
          const expiresAt = yield* repo.createSession({
            idHash,
            ownerId: account.id,
            csrfToken: secrets.csrfToken,
            ttl
          })
          return { idHash, csrfToken: secrets.csrfToken, expiresAt }
        })
      const [a, b, c] = [
        yield* start(Duration.hours(8)),
        yield* start(Duration.hours(8)),
        yield* start(Duration.hours(8))
      ]
      const ended = yield* start(Duration.zero)
      const found = Option.getOrThrow(yield* repo.findSession(a.idHash))
      assert.deepStrictEqual(
        [found.account.id, found.account.email, found.csrfToken, found.mustChangePassword, found.expiresAt],
        [account.id, email, a.csrfToken, true, a.expiresAt]
      )
      assert.isTrue(Option.isNone(yield* repo.findSession(ended.idHash)), "a session past its end is not found")
      assert.isTrue(Option.isNone(yield* repo.findSession(hashSession("never issued"))))
      yield* repo.update(email, { mustChangePassword: false })
      assert.isFalse(Option.getOrThrow(yield* repo.findSession(a.idHash)).mustChangePassword, "read with its account")
      yield* repo.deleteSession(a.idHash)
      assert.isTrue(Option.isNone(yield* repo.findSession(a.idHash)))
      yield* repo.update(email, { disabled: true })
      assert.isTrue(Option.isNone(yield* repo.findSession(b.idHash)), "a disabled account's sessions open nothing")
      yield* repo.update(email, { disabled: false })
      assert.isTrue(Option.isSome(yield* repo.findSession(b.idHash)))
      yield* repo.deleteSessionsOf(account.id, b.idHash)
      assert.isTrue(Option.isSome(yield* repo.findSession(b.idHash)), "the kept session stays")
      assert.isTrue(Option.isNone(yield* repo.findSession(c.idHash)))
      yield* repo.deleteSessionsOf(account.id)
      assert.isTrue(Option.isNone(yield* repo.findSession(b.idHash)))
    }))
}
