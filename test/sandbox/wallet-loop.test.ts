import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { formatMinor } from "../../src/domain/Money.ts"
import { CallbackWorker } from "../../src/wallet/outbox/CallbackWorker.ts"
import { sandboxPartnerWalletPath } from "../../src/integrations/sandbox/SandboxPartnerWallet.ts"
import { signedHeaders, verify } from "../../src/wallet/outbox/Signature.ts"
import { eventually, live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { bodyAs, givenPartner, givenSyncedCatalog, request, TestApp, textBody } from "../support/TestApp.ts"

const brl = knownCurrency("BRL")!

const serverUrl = Effect.map(
  Effect.service(HttpServer.HttpServer),
  (server) => `http://127.0.0.1:${(server.address as { readonly port: number }).port}`
)

// The game page, its spins and the demo wallet are the sandbox's own pages and protocol: read on the wire.

/** A spin the wallet took: the stake, the win, the balance after, and no reason. */
const Spin = Schema.Struct({
  msg: Schema.String,
  bet: Schema.Number,
  win: Schema.Number,
  balance: Schema.Number,
  reason: Schema.NullOr(Schema.String)
})

/** A spin the wallet refused, with the reason in words. */
const RefusedSpin = Schema.Struct({
  msg: Schema.String,
  balance: Schema.Number,
  win: Schema.Number,
  reason: Schema.String
})

/** What the game page's callbacks list shows of each callback. */
const ShownCallbacks = Schema.Struct({
  callbacks: Schema.Array(Schema.Struct({
    kind: Schema.String,
    status: Schema.String,
    event_id: Schema.String,
    body: Schema.Record(Schema.String, Schema.Unknown),
    received: Schema.NullOr(Schema.Struct({ headers: Schema.Record(Schema.String, Schema.String) }))
  }))
})

/** A launch through the typed client (the balance in cents): the game page's path. */
const launchPath = (token: string, externalPlayerId: string, cents: number) =>
  Effect.gen(function*() {
    const client = yield* partnerClient(token)
    const launched = yield* client.casino.launch({
      payload: {
        external_player_id: externalPlayerId,
        player_balance: formatMinor(BigInt(cents), brl),
        provider: "aurora-gaming",
        game_code: "ag-hidden-fortune"
      }
    })
    return new URL(launched.data.launch.url).pathname
  })

layer(CallbackWorker.pipe(Layer.provideMerge(TestApp())), live)("the sandbox closes the wallet loop", (it) => {
  it.effect("a spin on the game page moves the balance in the partner's wallet and shows the signed callbacks", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { partner, token, webhookSecret } = yield* givenPartner({
        name: "Sandbox Operator",
        callbackUrl: `${yield* serverUrl}${sandboxPartnerWalletPath}`
      })
      const gamePath = yield* launchPath(token, "spinner", 2000)
      const page = yield* request("GET", gamePath)
      assert.include(textBody(page), "id=\"spin\"")

      // The partner's own wallet (the sandbox's demo wallet) holds the balance a spin answered once its win
      // has arrived, as a notification; each spin waits for it, so the next stake is taken from that balance.
      const sql = yield* SqlClient.SqlClient
      const walletHolds = (expected: number) =>
        eventually(
          sql<{ balance: string }>`SELECT balance FROM sandbox_partner_wallets WHERE partner_id = ${partner.id}`,
          (rows) => rows.length === 1 && formatMinor(BigInt(rows[0].balance), brl) === expected.toFixed(2),
          "the partner's wallet"
        )
      const spins: Array<typeof Spin.Type> = []
      for (let i = 0; i < 5; i++) {
        const spin = yield* request("POST", `${gamePath}/spin`, { json: { bet: 2 } })
        assert.strictEqual(spin.status, 200, JSON.stringify(spin.body))
        const answered = bodyAs(Spin)(spin)
        spins.push(answered)
        yield* walletHolds(answered.balance)
      }
      const last = spins.at(-1)!
      const expected = 20 + spins.reduce((sum, spin) => sum - spin.bet + spin.win, 0)
      assert.strictEqual(last.msg, "")
      assert.closeTo(last.balance, expected, 0.001)
      yield* walletHolds(expected)

      // The page shows what the partner received, signed with its secret.
      const shown = yield* request("GET", `${gamePath}/callbacks`)
      const bet = bodyAs(ShownCallbacks)(shown).callbacks.find((callback) => callback.kind === "bet")!
      assert.strictEqual(bet.status, "delivered")
      assert.deepInclude(bet.body, { kind: "bet", amount: 2, partner: partner.slug })
      const [received] = yield* sql<
        { body: string }
      >`SELECT body FROM sandbox_partner_events WHERE event_id = ${bet.event_id}`
      assert.isTrue(verify(
        webhookSecret,
        {
          timestamp: bet.received!.headers["x-partner-timestamp"],
          signature: bet.received!.headers["x-partner-signature"]
        },
        received.body,
        new Date()
      ))

      // A stake the wallet cannot cover is refused, in the aggregator's terms, and moves nothing.
      yield* sql`UPDATE sandbox_partner_wallets SET balance = 100 WHERE partner_id = ${partner.id}`
      const refused = yield* request("POST", `${gamePath}/spin`, { json: { bet: 5 } })
      assert.deepInclude(refused.body, { msg: "INSUFFICIENT_USER_FUNDS", balance: 1, win: 0 })
    }))

  it.effect("each launch's balance is where the page and the partner's wallet start; refusals say why in words", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { token } = yield* givenPartner({
        name: "Relaunch Operator",
        callbackUrl: `${yield* serverUrl}${sandboxPartnerWalletPath}`
      })
      const launch = (balance: number) => launchPath(token, "relauncher", balance * 100)
      const shownBalance = (gamePath: string) =>
        Effect.map(request("GET", gamePath), (page) => /id="balance">([^<]*)</.exec(textBody(page))?.[1])

      // Played a while at 150.00...
      const first = yield* launch(150)
      assert.strictEqual(yield* shownBalance(first), "150.00 BRL")
      assert.strictEqual(bodyAs(Spin)(yield* request("POST", `${first}/spin`, { json: { bet: 5 } })).msg, "")

      // ...then, once that spin's callbacks are in, the partner launches the player again with 10.00: the page
      // and the next spin start from 10.00.
      const sql = yield* SqlClient.SqlClient
      const callbacksDelivered = (session: string) =>
        eventually(
          sql`SELECT 1 FROM partner_callbacks c JOIN partner_players pp ON pp.id = c.player_id
              WHERE pp.external_player_id = 'relauncher' AND c.status <> 'delivered'`,
          (rows) => rows.length === 0,
          `the ${session} session's callbacks`
        )
      yield* callbacksDelivered("first")
      const second = yield* launch(10)
      assert.strictEqual(yield* shownBalance(second), "10.00 BRL")
      const spin = bodyAs(Spin)(yield* request("POST", `${second}/spin`, { json: { bet: 1 } }))
      assert.strictEqual(spin.msg, "")
      assert.isNull(spin.reason)
      assert.closeTo(spin.balance, 10 - 1 + spin.win, 0.001)
      assert.strictEqual(yield* shownBalance(second), `${spin.balance.toFixed(2)} BRL`)

      // A stake above the balance the launch sent: refused, and the page is told why in words. (Once the
      // second session's win is in: arriving after the launch, it would rightly add to the partner's books.)
      yield* callbacksDelivered("second")
      const third = yield* launch(1)
      const refused = bodyAs(RefusedSpin)(yield* request("POST", `${third}/spin`, { json: { bet: 5 } }))
      assert.deepInclude(refused, { msg: "INSUFFICIENT_USER_FUNDS", balance: 1, win: 0 })
      assert.match(refused.reason, /^Insufficient funds/)
      const page = textBody(yield* request("GET", third))
      assert.include(page, "spin.reason", "the page shows the reason, not the code")
      assert.notInclude(page, "wallet: \" + spin.msg")
    }))

  it.effect("the demo wallet refuses a callback that is not signed by the partner", () =>
    Effect.gen(function*() {
      const { partner } = yield* givenPartner({ name: "Unsigned Operator" })
      const forged = yield* request("POST", sandboxPartnerWalletPath, {
        headers: { "x-partner-timestamp": String(Math.floor(Date.now() / 1000)), "x-partner-signature": "v1=00" },
        json: {
          event_id: "evt_forged",
          kind: "win",
          partner: partner.slug,
          player: { external_player_id: "x", user_code: 1 },
          currency: "BRL",
          amount: 1000
        }
      })
      assert.strictEqual(forged.status, 401)
    }))

  it.effect("the demo wallet remembers a rollback of a bet it never saw, and refuses that bet when it comes late", () =>
    Effect.gen(function*() {
      const { partner, webhookSecret } = yield* givenPartner({ name: "Late Operator" })
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO sandbox_partner_wallets (partner_id, external_player_id, currency, balance) VALUES (${partner.id}, 'late', 'BRL', 3000)`
      const send = (body: Record<string, unknown>) => {
        const raw = JSON.stringify({
          partner: partner.slug,
          player: { external_player_id: "late", user_code: 1 },
          currency: "BRL",
          ...body
        })
        return request("POST", sandboxPartnerWalletPath, {
          headers: signedHeaders([webhookSecret], String(body.event_id), raw, new Date()),
          body: raw
        })
      }
      // The service gave up on the bet and rolled it back; the rollback got here first.
      const rolledBack = yield* send({
        event_id: "evt_rb_late",
        kind: "rollback",
        amount: 10,
        rolls_back: "evt_bet_late"
      })
      assert.deepStrictEqual(
        [rolledBack.status, bodyAs(Schema.Struct({ rolled_back: Schema.Boolean }))(rolledBack).rolled_back],
        [200, false]
      )
      const late = yield* send({ event_id: "evt_bet_late", kind: "bet", amount: 10 })
      assert.deepStrictEqual([late.status, late.body], [409, { error: "rolled_back", balance: 30 }])
      const [wallet] = yield* sql<{ balance: string }>`
        SELECT balance FROM sandbox_partner_wallets WHERE partner_id = ${partner.id} AND external_player_id = 'late'
      `
      assert.strictEqual(wallet.balance, "3000", "the stake was never taken")
    }))
})
