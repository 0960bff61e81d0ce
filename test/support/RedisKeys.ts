import { createClient } from "redis"

/**
 * The machine's Redis as tests and the fleet bench use it: whether one answers, and removing what a run
 * left under its key prefix. Kept apart from the test app so the bench can use it without building it.
 */

/** The machine's Redis for tests: TEST_REDIS_URL, or the one on 6379. */
export const testRedisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

/** Whether a Redis answers at `url` (a PING within a second). */
export const redisAnswers = async (url: string): Promise<boolean> => {
  const client = createClient({ url, socket: { connectTimeout: 1_000, reconnectStrategy: false } })
  client.on("error", () => {})
  try {
    await client.connect()
    return (await client.ping()) === "PONG"
  } catch {
    return false
  } finally {
    if (client.isOpen) client.destroy()
  }
}

/** Removes every key under `prefix`, the persistence store's too (it escapes the prefix's colons). */
export const removeKeysUnder = async (url: string, prefix: string): Promise<void> => {
  const client = createClient({ url })
  client.on("error", () => {})
  await client.connect()
  for (const pattern of [`${prefix}*`, `${prefix.replace(/:/g, "%3A")}*`]) {
    for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 1000 })) {
      if (keys.length > 0) await client.del(keys)
    }
  }
  client.destroy()
}
