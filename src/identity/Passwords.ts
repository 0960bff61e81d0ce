import { Context, Effect, Layer, Option, Schema, Semaphore } from "effect"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { IdentityConfig } from "./IdentityConfig.ts"

/**
 * Admin passwords, hashed with scrypt (node:crypto) and a random salt of
 * their own. Stored as `scrypt$N$r$p$<salt base64>$<hash base64>`, so the
 * cost can be raised later without invalidating older hashes.
 */
const cost = { N: 16384, r: 8, p: 1 } as const
const keyLength = 64

const derive = (password: string, salt: Buffer, params: { N: number; r: number; p: number }) =>
  Effect.callback<Buffer>((resume) => {
    scrypt(password.normalize("NFC"), salt, keyLength, { ...params, maxmem: 64 * 1024 * 1024 }, (error, key) => {
      resume(error === null ? Effect.succeed(key) : Effect.die(error))
    })
  })

export const hashPassword = Effect.fn("Passwords.hash")(function*(password: string) {
  const salt = randomBytes(16)
  const key = yield* derive(password, salt, cost)
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString("base64")}$${key.toString("base64")}`
})

/** Whether `password` matches `stored`, compared in constant time. An unreadable hash matches nothing. */
export const verifyPassword = Effect.fn("Passwords.verify")(function*(password: string, stored: string) {
  const parts = stored.split("$")
  if (parts.length !== 6 || parts[0] !== "scrypt") return false
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
  const expected = Buffer.from(parts[5], "base64")
  if (![N, r, p].every(Number.isSafeInteger) || expected.length !== keyLength) return false
  const key = yield* derive(password, Buffer.from(parts[4], "base64"), { N, r, p })
  return timingSafeEqual(key, expected)
})

/**
 * A hash nothing matches, checked when an e-mail names no account, so an
 * unknown e-mail takes as long to refuse as a wrong password.
 */
export const decoyHash = `scrypt$${cost.N}$${cost.r}$${cost.p}$${randomBytes(16).toString("base64")}$${
  randomBytes(keyLength).toString("base64")
}`

/** A one-time password an operator reads from the CLI and types once: 20 URL-safe characters (120 bits). */
export const generatePassword = () => randomBytes(15).toString("base64url")

/** Every permit to hash is taken: the log-in is refused at once rather than queued. */
export class HashersBusy extends Schema.TaggedError<HashersBusy>()("HashersBusy", {}) {
  readonly retryAfterSeconds = 1
  override get message() {
    return "Too many log-ins are being checked right now: try again in a moment."
  }
}

/**
 * Password checks of the console and the portal together (log-ins, password changes), at most
 * ADMIN_LOGIN_CONCURRENT_HASHES at once. scrypt runs on libuv's thread pool, which the process shares with file
 * reads and the system resolver's DNS look-ups: a burst of log-ins must not take every thread, so one beyond the
 * permits is refused (429) instead of waiting for one.
 */
export class PasswordHashing extends Context.Service<PasswordHashing, {
  /** Runs `effect` holding a permit, or fails with HashersBusy when none is free now. */
  gated<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | HashersBusy, R>
  readonly permits: Semaphore.Semaphore
}>()("partner-api/identity/PasswordHashing") {
  static readonly layer = Layer.effect(
    PasswordHashing,
    Effect.gen(function*() {
      const { concurrentHashes } = yield* IdentityConfig
      const permits = yield* Semaphore.make(concurrentHashes)
      return PasswordHashing.of({
        permits,
        gated: (effect) =>
          permits.withPermitsIfAvailable(1)(effect).pipe(
            Effect.flatMap(Option.match({ onNone: () => Effect.fail(new HashersBusy()), onSome: Effect.succeed }))
          )
      })
    })
  )
}
