/**
 * Who a callback reaches and how it proves where it came from: webhook
 * secret rotation with overlap (both signatures until the old one expires),
 * and callback URLs refused at delivery time when they lead somewhere
 * private, even if they got into the database.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { assertConserved, givenPlayer, givenWalletPartner, WalletApp, winBet } from "../support/WalletApp.ts"

describe("webhook secret rotation", () => {
  const books = new PartnerBooks()
  layer(WalletApp(books, { partners: { webhookSecretOverlap: Duration.seconds(2) } }), live)("with an overlap", (it) => {
    it.effect("signs with the new and the old secret until the overlap ends, then with the new one only", () =>
      Effect.gen(function*() {
        const { partner, webhookSecret: old } = yield* givenWalletPartner(books)
        const player = yield* givenPlayer(books, partner.id, "rotating", 100)
        const { webhookSecret: fresh } = yield* (yield* Partners).rotateWebhookSecret(partner.slug)
        yield* Effect.sleep("100 millis") // the change notice reaches the callback targets' cache

        // The partner still verifies with the old secret only: accepted.
        books.secrets.clear()
        books.secrets.add(old)
        const during = yield* winBet(player.internal_user_id, "rot-1", { bet: 5, win: 0 })
        assert.deepStrictEqual(during.body, { msg: "", balance: 95 })
        const [asked] = books.receivedFor(transactionEventId("bet", "rot-1"))
        assert.match(String(asked.headers["x-partner-signature"]), /^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/)
        assert.isTrue(asked.verified)

        // It switches to the new secret: accepted too.
        books.secrets.clear()
        books.secrets.add(fresh)
        assert.deepStrictEqual((yield* winBet(player.internal_user_id, "rot-2", { bet: 5, win: 0 })).body, { msg: "", balance: 90 })

        // Once the overlap is over, only the new secret signs: a partner still on the old one refuses.
        yield* Effect.sleep("2 seconds")
        const after = yield* winBet(player.internal_user_id, "rot-3", { bet: 5, win: 0 })
        const [signedOnce] = books.receivedFor(transactionEventId("bet", "rot-3"))
        assert.match(String(signedOnce.headers["x-partner-signature"]), /^v1=[0-9a-f]{64}$/)
        assert.deepStrictEqual(after.body, { msg: "", balance: 85 })
        books.secrets.clear()
        books.secrets.add(old)
        const stale = yield* winBet(player.internal_user_id, "rot-4", { bet: 5, win: 0 })
        assert.deepStrictEqual(stale.body, { msg: "INSUFFICIENT_USER_FUNDS", balance: 85 })
        books.secrets.add(fresh)
        yield* assertConserved(books, { external: "rotating", playerId: player.id, start: 100 }, after.body)
      }))
  })
})

describe("callback URLs at delivery time", () => {
  const books = new PartnerBooks()
  layer(WalletApp(books, { partners: { callbackAllowPrivate: false } }), live)("with private addresses refused", (it) => {
    it.effect("a URL that is plain http, or whose host resolves to this machine, is never called", () =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        const sql = yield* SqlClient.SqlClient
        const port = new URL(fake.url).port
        const cases = [
          [`${fake.url}/wallet`, /must be https/],
          [`https://localhost:${port}/wallet`, /resolves to (127\.0\.0\.1|::1), which callbacks may not reach/],
          [`https://127.0.0.1:${port}/wallet`, /private, loopback, link-local or reserved address/]
        ] as const
        for (const [i, [url, reason]] of cases.entries()) {
          const { partner } = yield* givenWalletPartner(books, { callbackUrl: null })
          // Set before the policy was tightened (or by hand): the policy still stands between it and the partner.
          yield* sql`UPDATE partners SET callback_url = ${url} WHERE id = ${partner.id}`
          const player = yield* givenPlayer(books, partner.id, `private-${i}`, 20)
          const calls = fake.calls.length
          const answer = yield* winBet(player.internal_user_id, `private-${i}`, { bet: 1, win: 0 })
          assert.deepStrictEqual(answer.body, { msg: "INSUFFICIENT_USER_FUNDS", balance: 20 })
          assert.strictEqual(fake.calls.length, calls, `nothing reached ${url}`)
          const [bet] = yield* sql<{ last_error: string }>`
            SELECT last_error FROM partner_callbacks WHERE event_id = ${transactionEventId("bet", `private-${i}`)}
          `
          assert.match(bet.last_error, reason)
        }
      }))
  })
})
