import { Context, Effect, Layer, Option, Schema, Semaphore } from "effect"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { IdentityConfig } from "./IdentityConfig.ts"
import type { LoginRealm } from "./LoginAttemptRepo.ts"

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

/** Every permit to hash of the realm is taken and its short queue is full: the log-in is refused at once. */
export class HashersBusy extends Schema.TaggedError<HashersBusy>()("HashersBusy", {}) {
  readonly retryAfterSeconds = 1
  override get message() {
    return "Too many log-ins are being checked right now: try again in a moment."
  }
}

/** Log-ins that may wait for a permit, per permit: a queue of a few hashes' time (tens of milliseconds each). */
export const waitingPerPermit = 8

/** One realm's permits to hash, and its places: the permits and the queue before them together. */
export interface HashGate {
  readonly permits: Semaphore.Semaphore
  readonly places: Semaphore.Semaphore
  /** How many places there are (the permits and the queue). */
  readonly size: number
}

/**
 * Password checks (log-ins, password changes, accepted invitations), at most ADMIN_LOGIN_CONCURRENT_HASHES at once
 * in each realm: the console and the portal each have their own, so a flood of one never holds the other's. scrypt
 * runs on libuv's thread pool, which the process shares with file reads and the system resolver's DNS look-ups: a
 * burst must not take every thread. A check beyond the permits waits in a short queue (`waitingPerPermit` a permit),
 * and one beyond the queue is refused (429) rather than waiting. The throttle is decided before (SignIn): a
 * throttled attempt never takes a place.
 */
export class PasswordHashing extends Context.Service<PasswordHashing, {
  /** Runs `effect` holding a permit of `realm`, waiting in its queue for one, or fails with HashersBusy when it is full. */
  gated<A, E, R>(realm: LoginRealm, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | HashersBusy, R>
  readonly gates: { readonly [realm in LoginRealm]: HashGate }
}>()("partner-api/identity/PasswordHashing") {
  static readonly layer = Layer.effect(
    PasswordHashing,
    Effect.gen(function*() {
      const { concurrentHashes } = yield* IdentityConfig
      const gate = (): HashGate => {
        const size = concurrentHashes * (1 + waitingPerPermit)
        return { permits: Semaphore.makeUnsafe(concurrentHashes), places: Semaphore.makeUnsafe(size), size }
      }
      const gates = { admin: gate(), portal: gate() }
      return PasswordHashing.of({
        gates,
        gated: (realm, effect) => {
          const { permits, places } = gates[realm]
          return places.withPermitsIfAvailable(1)(permits.withPermits(1)(effect)).pipe(
            Effect.flatMap(Option.match({ onNone: () => Effect.fail(new HashersBusy()), onSome: Effect.succeed }))
          )
        }
      })
    })
  )
}
