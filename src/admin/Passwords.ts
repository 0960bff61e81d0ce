import { Effect } from "effect"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

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
