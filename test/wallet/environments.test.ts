/**
 * Live and test never mix in the wallet, over real HTTP and PostgreSQL: one
 * external player id launched in both is two players; the aggregator of one
 * environment (its agent credentials) reaches only that environment's
 * players; the same transaction and round ids in both are two transactions;
 * lookups of one never show the other; callbacks go to each environment's
 * own wallet (test without a callback URL: the sandbox partner wallet's
 * address, here a second fake partner). Conservation on both sides. Clearing
 * test data deletes every test row and leaves every live row as it was.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { PartnerAdmin } from "../../src/changes/PartnerAdmin.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { sandboxPartnerWalletPath } from "../../src/integrations/sandbox/SandboxConfig.ts"
import { AppConfig } from "../../src/platform/AppConfig.ts"
import { CallbackWorker } from "../../src/wallet/outbox/CallbackWorker.ts"
import { WalletLedger } from "../../src/wallet/WalletLedger.ts"
import { WalletRecovery } from "../../src/wallet/WalletRecovery.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { request, TestAppWith, testConfig } from "../support/TestApp.ts"
import {
  assertConserved,
  balance,
  givenPlayer,
  givenWalletPartner,
  refund,
  walletAnswer,
  walletCall,
  winBet
} from "../support/WalletApp.ts"

const liveBooks = new PartnerBooks()
const testBooks = new PartnerBooks()

// This service's public address is the fake's: the test environment's sandbox-wallet address lands there.
const App = Layer.merge(CallbackWorker, WalletRecovery).pipe(
  Layer.provideMerge(TestAppWith(Layer.effect(
    AppConfig,
    Effect.map(Effect.service(FakeUpstream), (fake) => testConfig({ publicUrl: Option.some(fake.url) }))
  ))),
  Layer.provideMerge(
    FakeUpstream.layer((call) =>
      call.path === sandboxPartnerWalletPath && call.query.environment === "test"
        ? testBooks.script(call)
        : liveBooks.script(call)
    )
  )
)

const testBet = (userCode: number, txnId: string, amounts: { bet: number; win: number }, roundId: string) =>
  winBet(userCode, txnId, amounts, roundId, "test")
const testRefund = (userCode: number, txnId: string, roundId: string) => refund(userCode, txnId, roundId, "test")

/** Every row of the partner's, by table and environment, as text: what "untouched" is compared on. */
const rowsOf = (partnerId: number, environment: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    Effect.all({
      players:
        sql`SELECT * FROM partner_players WHERE partner_id = ${partnerId} AND environment = ${environment} ORDER BY id`,
      rounds:
        sql`SELECT * FROM wallet_rounds WHERE partner_id = ${partnerId} AND environment = ${environment} ORDER BY id`,
      transactions:
        sql`SELECT * FROM wallet_transactions WHERE partner_id = ${partnerId} AND environment = ${environment} ORDER BY id`,
      callbacks: sql`SELECT id, event_id, player_id, kind, txn_id, transaction_ref, body, status
                     FROM partner_callbacks WHERE partner_id = ${partnerId} AND environment = ${environment} ORDER BY id`
    })).pipe(
      Effect.orDie,
      Effect.map((rows) =>
        JSON.parse(JSON.stringify(rows, (_, v) => typeof v === "bigint" ? String(v) : v)) as Record<
          string,
          Array<Record<string, unknown>>
        >
      )
    )

layer(App, live)("live and test in the wallet", (it) => {
  it.effect("one external id in live and test: two players, two ledgers, each conserved, never crossing", () =>
    Effect.gen(function*() {
      const acme = yield* givenWalletPartner(liveBooks)
      // Before test webhook secrets are stored, the sandbox-wallet target signs with the partner's live one.
      testBooks.secrets.add(acme.test.webhookSecret)
      const livePlayer = yield* givenPlayer(liveBooks, acme.partner.id, "same-id", 100)
      const testPlayer = yield* givenPlayer(testBooks, acme.partner.id, "same-id", 50, "test")
      assert.notStrictEqual(livePlayer.id, testPlayer.id)
      assert.notStrictEqual(livePlayer.internalUserId, testPlayer.internalUserId)
      assert.deepStrictEqual([livePlayer.environment, testPlayer.environment], ["live", "test"])

      // The same transaction and round ids in both environments: two transactions, not a replay.
      const liveAnswer = yield* winBet(livePlayer.internalUserId, "env-1", { bet: 10, win: 4 }, "env-round")
      const testAnswer = yield* testBet(testPlayer.internalUserId, "env-1", { bet: 5, win: 0 }, "env-round")
      assert.deepStrictEqual(liveAnswer.body, { msg: "", balance: 94 })
      assert.deepStrictEqual(testAnswer.body, { msg: "", balance: 45 })
      const testRefunded = yield* testRefund(testPlayer.internalUserId, "env-r1", "env-round")
      assert.deepStrictEqual(testRefunded.body, { msg: "", balance: 50 })
      const liveAgain = yield* winBet(livePlayer.internalUserId, "env-2", { bet: 20, win: 0 }, "env-round-2")
      assert.deepStrictEqual(liveAgain.body, { msg: "", balance: 74 })

      // A user code of the other environment is unknown to each aggregator, whatever the call.
      const crossed = [
        yield* testBet(livePlayer.internalUserId, "env-x1", { bet: 1, win: 0 }, "env-x"),
        yield* testRefund(livePlayer.internalUserId, "env-x2", "env-round-2"),
        yield* walletCall({ type: "Balance", user_code: livePlayer.internalUserId }, "test"),
        yield* winBet(testPlayer.internalUserId, "env-x3", { bet: 1, win: 0 }, "env-x"),
        yield* refund(testPlayer.internalUserId, "env-x4", "env-round"),
        yield* balance(testPlayer.internalUserId)
      ]
      for (const answer of crossed) assert.deepStrictEqual(walletAnswer(answer), { msg: "INVALID_USER", balance: 0 })

      // Callbacks went to each environment's own wallet.
      assert.isTrue(liveBooks.received.length > 0 && testBooks.received.length > 0)
      assert.isTrue(
        liveBooks.received.every((c) => c.body.player.user_code === livePlayer.internalUserId && c.verified)
      )
      assert.isTrue(
        testBooks.received.every((c) => c.body.player.user_code === testPlayer.internalUserId && c.verified)
      )

      // Lookups in one environment never show the other's.
      const ledger = yield* WalletLedger
      const page = { page: 1, perPage: 50 }
      const liveSeen = yield* ledger.transactions({ partnerId: acme.partner.id, environment: "live" }, {}, page)
      const testSeen = yield* ledger.transactions({ partnerId: acme.partner.id, environment: "test" }, {}, page)
      assert.deepStrictEqual(liveSeen.entries.map((e) => e.txnId).sort(), ["env-1", "env-2"])
      assert.deepStrictEqual(testSeen.entries.map((e) => e.txnId).sort(), ["env-1", "env-r1"])
      const liveOne = yield* ledger.transaction({ partnerId: acme.partner.id, environment: "live" }, "env-1")
      assert.deepStrictEqual(liveOne.map((e) => [e.kind, e.amount]), [["bet", -600n]])
      const testRound = yield* ledger.rounds(
        { partnerId: acme.partner.id, environment: "test" },
        "env-round",
        "same-id"
      )
      assert.deepStrictEqual(testRound.map((r) => r.transactions.map((t) => t.txnId)), [["env-1", "env-r1"]])
      assert.deepStrictEqual(
        yield* ledger.transaction({ partnerId: acme.partner.id, environment: "test" }, "env-2"),
        []
      )
      // The live token's own API (every token is live until test tokens are issued) sees live rows only.
      const wire = yield* request("GET", "/api/partner/v1/wallet/transactions", {
        headers: { authorization: `Bearer ${acme.token}` }
      })
      assert.deepStrictEqual(
        (wire.body as any).data.transactions.map((t: any) => t.transaction_id).sort(),
        ["env-1", "env-2"]
      )

      // Conservation, on each side, against each side's own wallet.
      yield* assertConserved(liveBooks, { external: "same-id", playerId: livePlayer.id, start: 100 }, liveAgain.body)
      yield* assertConserved(testBooks, { external: "same-id", playerId: testPlayer.id, start: 50 }, testRefunded.body)
    }))

  it.effect("clearing test data deletes the partner's test rows, and not one live row changes", () =>
    Effect.gen(function*() {
      const acme = yield* givenWalletPartner(liveBooks)
      testBooks.secrets.add(acme.test.webhookSecret)
      const other = yield* givenWalletPartner(liveBooks)
      testBooks.secrets.add(other.test.webhookSecret)
      const livePlayer = yield* givenPlayer(liveBooks, acme.partner.id, "clear-me", 100)
      const testPlayer = yield* givenPlayer(testBooks, acme.partner.id, "clear-me", 100, "test")
      const otherTest = yield* givenPlayer(testBooks, other.partner.id, "someone", 100, "test")
      yield* winBet(livePlayer.internalUserId, "clr-1", { bet: 10, win: 30 }, "clr-round")
      yield* refund(livePlayer.internalUserId, "clr-r1", "clr-round")
      yield* testBet(testPlayer.internalUserId, "clr-1", { bet: 10, win: 30 }, "clr-round")
      yield* testBet(otherTest.internalUserId, "clr-o1", { bet: 5, win: 0 }, "clr-o")
      yield* assertConserved(liveBooks, { external: "clear-me", playerId: livePlayer.id, start: 100 })
      yield* assertConserved(testBooks, { external: "clear-me", playerId: testPlayer.id, start: 100 })

      const liveBefore = yield* rowsOf(acme.partner.id, "live")
      const testBefore = yield* rowsOf(acme.partner.id, "test")
      const otherBefore = yield* rowsOf(other.partner.id, "test")
      assert.isTrue(testBefore.transactions.length > 0 && testBefore.callbacks.length > 0)

      const { cleared } = yield* (yield* PartnerAdmin).clearTestData({ name: "tester", via: "cli" }, acme.partner.slug)
      assert.deepStrictEqual(cleared, {
        players: 1,
        rounds: testBefore.rounds.length,
        transactions: testBefore.transactions.length,
        callbacks: testBefore.callbacks.length,
        statements: 0
      })
      assert.deepStrictEqual(yield* rowsOf(acme.partner.id, "live"), liveBefore, "every live row as it was")
      assert.deepStrictEqual(yield* rowsOf(acme.partner.id, "test"), {
        players: [],
        rounds: [],
        transactions: [],
        callbacks: []
      })
      assert.deepStrictEqual(yield* rowsOf(other.partner.id, "test"), otherBefore, "another partner's test rows stay")
      assert.isTrue(Option.isNone(yield* (yield* PartnerPlayers).find(acme.partner.id, "test", "clear-me", "BRL")))
      // The test player's user code is gone: its sandbox sessions' calls are refused.
      assert.deepStrictEqual(
        walletAnswer(yield* walletCall({ type: "Balance", user_code: testPlayer.internalUserId }, "test")),
        { msg: "INVALID_USER", balance: 0 }
      )
      // So are its bets, though this instance still knows who the user code was (the bets above): nothing is written.
      assert.deepStrictEqual(
        walletAnswer(yield* testBet(testPlayer.internalUserId, "clr-2", { bet: 10, win: 0 }, "clr-round-2")),
        { msg: "INVALID_USER", balance: 0 }
      )
      assert.deepStrictEqual(yield* rowsOf(acme.partner.id, "test"), {
        players: [],
        rounds: [],
        transactions: [],
        callbacks: []
      })
      const sql = yield* SqlClient.SqlClient
      const [audit] = yield* sql<{ action: string }>`
        SELECT action FROM admin_audit WHERE target = ${`partner:${acme.partner.slug}`} ORDER BY id DESC LIMIT 1`.pipe(
        Effect.orDie
      )
      assert.strictEqual(audit.action, "partner.clear-test-data")
    }))
})
