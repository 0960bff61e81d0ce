/**
 * Console log-ins beside the wallet: scrypt and the system resolver (dns.lookup) share libuv's thread
 * pool, so a burst of log-ins must neither take every thread nor leave a wallet call's look-up of its
 * partner's host waiting behind them past PARTNER_CALLBACK_TIMEOUT (1 s here), which refuses the bet.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { pbkdf2 } from "node:crypto"
import { adminRequest } from "../support/AdminConsole.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { live } from "../support/live.ts"
import { givenPlayer, givenWalletPartner, walletAnswer, WalletApp, winBet } from "../support/WalletApp.ts"

const books = new PartnerBooks()

/** A player of a partner whose callback URL names its host (`localhost`), so each new connection looks it up. */
const givenPlayerBehindName = (name: string) =>
  Effect.gen(function*() {
    const fake = yield* FakeUpstream
    const { partner } = yield* givenWalletPartner(books, {
      callbackUrl: `${fake.url.replace("127.0.0.1", "localhost")}/wallet`
    })
    return yield* givenPlayer(books, partner.id, name, 100)
  })

/** The time-out these tests mean: a look-up held behind the pool's threads would take seconds. */
const callbacks = { timeout: Duration.seconds(1) }

// Each case has a service (and fake partner) of its own: a kept-alive connection to the partner would skip the look-up.
layer(WalletApp(books, { trustedProxies: ["127.0.0.1"], callbacks }), live)(
  "console log-ins beside the wallet",
  (it) => {
    it.effect(
      "a bet relayed to a partner named by host is answered while a burst of log-ins runs",
      () =>
        Effect.gen(function*() {
          const player = yield* givenPlayerBehindName("burst-player")
          // Each log-in from a client and for an e-mail of its own: no throttle holds them back, only the permits to hash.
          const burst = Effect.all(
            Array.from({ length: 150 }, (_, i) =>
              adminRequest("POST", "/admin/api/session", {
                json: { email: `nobody${i}@example.com`, password: "a guess" },
                headers: { "x-forwarded-for": `198.18.${i >> 8}.${i & 255}` }
              })),
            { concurrency: "unbounded" }
          )
          const [logins, bet] = yield* Effect.all([
            burst,
            Effect.andThen(Effect.yieldNow, winBet(player.internalUserId, "burst-bet", { bet: 2, win: 0 }))
          ], {
            concurrency: 2
          })
          assert.deepStrictEqual(walletAnswer(bet).msg, "", JSON.stringify(bet.body))
          const statuses = new Set(logins.map((answer) => answer.status))
          assert.isTrue([...statuses].every((status) => status === 401 || status === 429), [...statuses].join(","))
        }),
      { timeout: 60_000 }
    )
  }
)

layer(WalletApp(books, { callbacks }), live)("the wallet beside other work on libuv's thread pool", (it) => {
  it.effect(
    "a bet relayed to a partner named by host needs no thread of libuv's pool for the look-up",
    () =>
      Effect.gen(function*() {
        const player = yield* givenPlayerBehindName("pool-player")
        // Work that holds every thread of the pool (4 unless UV_THREADPOOL_SIZE says otherwise) for seconds.
        const poolWork = Array.from(
          { length: 8 },
          () => new Promise<void>((resolve) => pbkdf2("busy", "pool", 1_500_000, 64, "sha512", () => resolve()))
        )
        const bet = yield* winBet(player.internalUserId, "pool-bet", { bet: 2, win: 0 })
        yield* Effect.promise(() => Promise.all(poolWork))
        assert.deepStrictEqual(walletAnswer(bet).msg, "", JSON.stringify(bet.body))
      }),
    { timeout: 60_000 }
  )
})
