/**
 * Who a callback reaches and how it proves where it came from: webhook
 * secret rotation with overlap (both signatures until the old one expires),
 * and callback URLs refused at delivery time when they lead somewhere
 * private, even if they got into the database.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Option, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { connect } from "node:net"
import { WalletCredentials } from "../../../src/integrations/playfiver/WalletCredentials.ts"
import { transactionEventId } from "../../../src/domain/Callbacks.ts"
import { CallbackTargets } from "../../../src/partners/CallbackTargets.ts"
import { Partners } from "../../../src/partners/Partners.ts"
import { AddressRanges } from "../../../src/platform/ClientAddress.ts"
import { PartnerBooks } from "../../support/FakePartner.ts"
import { FakeUpstream } from "../../support/FakeUpstream.ts"
import { eventually, live } from "../../support/live.ts"
import { request } from "../../support/TestApp.ts"
import {
  assertConserved,
  givenPlayer,
  givenWalletPartner,
  givenWalletPlayer,
  WalletApp,
  winBet
} from "../../support/WalletApp.ts"

describe("webhook secret rotation", () => {
  const books = new PartnerBooks()
  layer(WalletApp(books, { partners: { webhookSecretOverlap: Duration.seconds(2) } }), live)(
    "with an overlap",
    (it) => {
      it.effect("signs with the new and the old secret until the overlap ends, then with the new one only", () =>
        Effect.gen(function*() {
          const { partner, webhookSecret: old } = yield* givenWalletPartner(books)
          const player = yield* givenPlayer(books, partner.id, "rotating", 100)
          const { webhookSecret: fresh } = yield* (yield* Partners).rotateWebhookSecret(partner.slug)
          // The change notice reaches the callback targets' cache: it gives the new secret.
          const targets = yield* CallbackTargets
          yield* eventually(
            targets.get(partner.id, "live"),
            (target) => Option.isSome(target) && target.value.webhookSecret === fresh,
            "the new secret in the callback targets' cache"
          )

          // The partner still verifies with the old secret only: accepted.
          books.secrets.clear()
          books.secrets.add(old)
          const during = yield* winBet(player.internalUserId, "rot-1", { bet: 5, win: 0 })
          assert.deepStrictEqual(during.body, { msg: "", balance: 95 })
          const [asked] = books.receivedFor(transactionEventId("bet", "rot-1"))
          assert.match(String(asked.headers["x-partner-signature"]), /^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/)
          assert.isTrue(asked.verified)

          // It switches to the new secret: accepted too.
          books.secrets.clear()
          books.secrets.add(fresh)
          assert.deepStrictEqual((yield* winBet(player.internalUserId, "rot-2", { bet: 5, win: 0 })).body, {
            msg: "",
            balance: 90
          })

          // Once the overlap is over, only the new secret signs: a partner still on the old one refuses.
          yield* Effect.sleep("2 seconds")
          const after = yield* winBet(player.internalUserId, "rot-3", { bet: 5, win: 0 })
          const [signedOnce] = books.receivedFor(transactionEventId("bet", "rot-3"))
          assert.match(String(signedOnce.headers["x-partner-signature"]), /^v1=[0-9a-f]{64}$/)
          assert.deepStrictEqual(after.body, { msg: "", balance: 85 })
          books.secrets.clear()
          books.secrets.add(old)
          const stale = yield* winBet(player.internalUserId, "rot-4", { bet: 5, win: 0 })
          assert.deepStrictEqual(stale.body, { msg: "INSUFFICIENT_USER_FUNDS", balance: 85 })
          books.secrets.add(fresh)
          yield* assertConserved(books, { external: "rotating", playerId: player.id, start: 100 }, after.body)
        }))
    }
  )
})

describe("callback URLs at delivery time", () => {
  const books = new PartnerBooks()
  layer(WalletApp(books, { partners: { callbackAllowPrivate: false } }), live)(
    "with private addresses refused",
    (it) => {
      it.effect("a URL that is plain http, or whose host resolves to this machine, is never called", () =>
        Effect.gen(function*() {
          const fake = yield* FakeUpstream
          const sql = yield* SqlClient.SqlClient
          const port = new URL(fake.url).port
          const cases = [
            [`${fake.url}/wallet`, /must be https/],
            // The address is the operator's log's, not the partner's last_error.
            [
              `https://localhost:${port}/wallet`,
              /localhost resolves to a private, loopback, link-local or reserved address, which callbacks may not reach(?!.*(127\.0\.0\.1|::1))/
            ],
            [`https://127.0.0.1:${port}/wallet`, /private, loopback, link-local or reserved address/]
          ] as const
          for (const [i, [url, reason]] of cases.entries()) {
            const { partner } = yield* givenWalletPartner(books, { callbackUrl: null })
            // Set before the policy was tightened (or by hand): the policy still stands between it and the partner.
            yield* sql`UPDATE partner_environments SET callback_url = ${url} WHERE partner_id = ${partner.id} AND environment = 'live'`
            const player = yield* givenPlayer(books, partner.id, `private-${i}`, 20)
            const calls = fake.calls.length
            const answer = yield* winBet(player.internalUserId, `private-${i}`, { bet: 1, win: 0 })
            assert.deepStrictEqual(answer.body, { msg: "INSUFFICIENT_USER_FUNDS", balance: 20 })
            assert.strictEqual(fake.calls.length, calls, `nothing reached ${url}`)
            const [bet] = yield* sql<{ last_error: string }>`
            SELECT last_error FROM partner_callbacks WHERE event_id = ${transactionEventId("bet", `private-${i}`)}
          `
            assert.match(bet.last_error, reason)
          }
        }))
    }
  )
})

/**
 * Sends a wallet call over a raw socket, as if from `client` through the trusted proxy on 127.0.0.1, with
 * only the first half of its body: an answer can only come from a server that did not wait for the rest.
 * The connection is closed once the answer's head and body arrive.
 */
const halfSentCall = (port: number, client: string, body: string) =>
  Effect.callback<{ status: number; headers: string; body: unknown }>((resume) => {
    const socket = connect(port, "127.0.0.1")
    let answer = ""
    socket.on("data", (chunk) => {
      answer += chunk.toString("utf8")
      const [head, rest = ""] = answer.split("\r\n\r\n")
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? -1)
      if (length >= 0 && Buffer.byteLength(rest) >= length) {
        socket.destroy()
        resume(Effect.succeed({ status: Number(head.split(" ")[1]), headers: head, body: JSON.parse(rest) }))
      }
    })
    socket.on("error", (error) => resume(Effect.die(error)))
    socket.write(
      `POST /aggregator/wallet HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Forwarded-For: ${client}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, Math.floor(body.length / 2))}`
    )
    return Effect.sync(() => socket.destroy())
  })

const portOf = Effect.map(Effect.service(HttpServer.HttpServer), (server) => {
  if (server.address._tag === "UnixPathAddress") throw new Error("the test server does not listen on TCP")
  return server.address.port
})

/** A wallet call from `client` (through the trusted proxy), with the agent's own credentials unless `secret` is given. */
const callFrom = (client: string, userCode: number, secret?: string) =>
  Effect.gen(function*() {
    const credentials = Option.getOrThrow((yield* WalletCredentials).expected)
    return yield* request("POST", "/aggregator/wallet", {
      headers: { "x-forwarded-for": client },
      json: {
        type: "Balance",
        user_code: userCode,
        agent_code: credentials.agentCode,
        agent_secret: secret ?? Redacted.value(credentials.agentSecret)
      }
    })
  })

const wrongAgentLimit = 3

describe("who may call the wallet URL", () => {
  const books = new PartnerBooks()
  layer(
    WalletApp(books, {
      trustedProxies: ["127.0.0.1"],
      callbacks: { aggregatorAllowedIps: new AddressRanges(["192.0.2.0/24", "2001:db8::/32"]) },
      app: { authFailureLimit: wrongAgentLimit }
    }),
    live
  )("with AGGREGATOR_ALLOWED_IPS and AUTH_FAILURE_LIMIT", (it) => {
    it.effect("a caller outside the allowlist gets INVALID_AGENT before its body is read, and nothing reaches a wallet", () =>
      Effect.gen(function*() {
        const { userCode } = yield* givenWalletPlayer(books, 25)
        const credentials = Option.getOrThrow((yield* WalletCredentials).expected)
        const port = yield* portOf
        const received = books.received.length
        const body = JSON.stringify({
          type: "WinBet",
          user_code: userCode,
          agent_code: credentials.agentCode,
          agent_secret: Redacted.value(credentials.agentSecret),
          slot: { txn_id: "outside-1", round_id: "outside-1", bet: 5, win: 0 }
        })
        for (const outsider of ["198.51.100.9", "2001:db9::1", "::ffff:203.0.113.1"]) {
          const refused = yield* halfSentCall(port, outsider, body)
          assert.deepStrictEqual([refused.status, refused.body], [403, { msg: "INVALID_AGENT", balance: 0 }], outsider)
          const whole = yield* callFrom(outsider, userCode)
          assert.deepStrictEqual([whole.status, whole.body], [403, { msg: "INVALID_AGENT", balance: 0 }], outsider)
        }
        assert.strictEqual(books.received.length, received, "no partner was asked anything")
        // From inside the list the same calls are served.
        for (const insider of ["192.0.2.10", "2001:db8::a"]) {
          assert.deepStrictEqual((yield* callFrom(insider, userCode)).body, { msg: "", balance: 25 }, insider)
        }
      }))

    it.effect("past AUTH_FAILURE_LIMIT wrong agents an address gets 429 TOO_MANY_REQUESTS with Retry-After, its body unread, right credentials too", () =>
      Effect.gen(function*() {
        const { userCode } = yield* givenWalletPlayer(books, 30)
        const port = yield* portOf
        const guesser = "192.0.2.66"
        for (let i = 0; i < wrongAgentLimit; i++) {
          const refused = yield* callFrom(guesser, userCode, `guess-${i}`)
          assert.deepStrictEqual(
            [refused.status, refused.body],
            [401, { msg: "INVALID_AGENT", balance: 0 }],
            `guess ${i}`
          )
        }
        const limited = yield* callFrom(guesser, userCode, "guess-again")
        assert.deepStrictEqual([limited.status, limited.body], [429, { msg: "TOO_MANY_REQUESTS", balance: 0 }])
        assert.match(limited.headers["retry-after"] ?? "", /^[1-9][0-9]*$/)
        // Now the address is refused before its body is read, whatever it carries: a right guess is never confirmed.
        const right = yield* callFrom(guesser, userCode)
        assert.deepStrictEqual([right.status, right.body], [429, { msg: "TOO_MANY_REQUESTS", balance: 0 }])
        const halfSent = yield* halfSentCall(port, guesser, JSON.stringify({ type: "Balance", user_code: userCode }))
        assert.strictEqual(halfSent.status, 429)
        assert.match(halfSent.headers, /retry-after: [1-9][0-9]*/i)
        // Another address of the allowlist is not affected.
        assert.deepStrictEqual((yield* callFrom("192.0.2.67", userCode)).body, { msg: "", balance: 30 })
      }))
  })
})
