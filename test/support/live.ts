/**
 * Options for `layer(...)` in tests that talk to real PostgreSQL, sockets
 * and processes: they run on the real clock, since time-outs, retries and
 * polling must actually elapse.
 */
export const live = { excludeTestServices: true } as const
