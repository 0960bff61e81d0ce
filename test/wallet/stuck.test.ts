/**
 * Stuck items over real PostgreSQL, with two instances of the service on one database: a round left open by a
 * bet whose instance died (nobody recovers it here), that bet pending past its time-out, and a notification out
 * of attempts are each reported ONCE to a fake operator endpoint that counts calls (the first call it refuses:
 * retried), signed with OPERATOR_ALERT_SECRET; the metric counts them; once settled and delivered, they are
 * resolved. Thresholds are
 * a few seconds, so no test waits for a real one. The settings' own rules come first.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { betOf, betSettlement } from "../../src/domain/WalletRecords.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { servicesLayer } from "../../src/server.ts"
import { CallbacksConfig } from "../../src/wallet/CallbacksConfig.ts"
import { CallbackWorker } from "../../src/wallet/outbox/CallbackWorker.ts"
import { verify } from "../../src/wallet/outbox/Signature.ts"
import { OperationsConfig } from "../../src/wallet/stuck/OperationsConfig.ts"
import { StuckItems } from "../../src/wallet/stuck/StuckItems.ts"
import { WalletOperations } from "../../src/wallet/WalletOperations.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream, type RecordedCall } from "../support/FakeUpstream.ts"
import { eventually, live } from "../support/live.ts"
import { parsePrometheusText } from "../support/PrometheusText.ts"
import { TestDatabaseOnUrl } from "../support/TestDatabase.ts"
import {
  request,
  TestAppWith,
  testCallbacksConfig,
  TestConfig,
  testOperationsConfig,
  textBody
} from "../support/TestApp.ts"
import { givenPlayer, givenWalletPartner, walletAnswer, winBet } from "../support/WalletApp.ts"

describe("the stuck settings", () => {
  const parse = (env: Record<string, string>) => OperationsConfig.config.parse(ConfigProvider.fromUnknown(env))

  it.effect("WALLET_STUCK_ROUND_AFTER above WALLET_PENDING_TIMEOUT (unset, it follows it); a secret of 16 characters with OPERATOR_ALERT_URL", () =>
    Effect.gen(function*() {
      const fine = yield* parse({
        WALLET_STUCK_ROUND_AFTER: "2 minutes",
        OPERATOR_ALERT_URL: "https://ops.example/hook",
        OPERATOR_ALERT_SECRET: "s".repeat(16)
      })
      assert.deepStrictEqual([Duration.toMillis(fine.stuckRoundAfter), fine.alertUrl], [
        120_000,
        Option.some("https://ops.example/hook")
      ])
      const defaults = yield* parse({})
      assert.isTrue(Option.isNone(defaults.alertUrl), "no alert by default")
      assert.strictEqual(Duration.toMillis(defaults.stuckRoundAfter), 60_000)
      const longer = yield* parse({ WALLET_PENDING_TIMEOUT: "2 minutes", PARTNER_CALLBACK_TIMEOUT: "1 minute" })
      assert.strictEqual(
        Duration.toMillis(longer.stuckRoundAfter),
        480_000,
        "unset, it follows a longer WALLET_PENDING_TIMEOUT"
      )
      const refused = (env: Record<string, string>) => Effect.map(Effect.flip(parse(env)), (error) => error.message)
      assert.include(
        yield* refused({ WALLET_STUCK_ROUND_AFTER: "10 seconds" }),
        "WALLET_STUCK_ROUND_AFTER must be more than WALLET_PENDING_TIMEOUT"
      )
      assert.include(yield* refused({ WALLET_STUCK_ROUND_AFTER: "soon" }), "WALLET_STUCK_ROUND_AFTER")
      assert.include(
        yield* refused({ OPERATOR_ALERT_URL: "https://ops.example/hook" }),
        "OPERATOR_ALERT_SECRET is required"
      )
      assert.include(
        yield* refused({ OPERATOR_ALERT_URL: "ftp://ops.example", OPERATOR_ALERT_SECRET: "s".repeat(16) }),
        "OPERATOR_ALERT_URL"
      )
      assert.include(
        yield* refused({ OPERATOR_ALERT_URL: "https://ops.example/hook", OPERATOR_ALERT_SECRET: "short" }),
        "at least 16"
      )
    }))
})

const books = new PartnerBooks()
const alertSecret = "operator-alert-secret-0123456789"
let refuseNextAlert = true

/** The fake serves the partner's wallet and the operator's alert endpoint (which refuses its very first call). */
const script = (call: RecordedCall) => {
  if (call.path !== "/alerts") return books.script(call)
  if (refuseNextAlert) {
    refuseNextAlert = false
    return { kind: "json", status: 500, body: { error: "paging service restarting" } } as const
  }
  return { kind: "json", body: { ok: true } } as const
}

/** Stuck after 2 s (checked every second); bets time out after 1.6 s; a notification gets one attempt. */
const settings = Layer.merge(
  Layer.effect(
    OperationsConfig,
    Effect.map(Effect.service(FakeUpstream), (fake) =>
      testOperationsConfig({
        stuckRoundAfter: Duration.seconds(2),
        alertUrl: Option.some(`${fake.url}/alerts`),
        alertSecret: Option.some(Redacted.make(alertSecret))
      }))
  ),
  Layer.succeed(
    CallbacksConfig,
    testCallbacksConfig({ timeout: Duration.millis(500), pendingTimeout: Duration.millis(1600), maxAttempts: 1 })
  )
)

/** This instance: the service with its delivery worker and the wallet's operations (no bet recovery: its instance is gone). */
const FirstInstance = Layer.merge(WalletOperations, CallbackWorker).pipe(
  Layer.provideMerge(TestAppWith(settings)),
  Layer.provideMerge(FakeUpstream.layer(script))
)

/** A second instance on the same database, running the same operations. */
const SecondInstance = WalletOperations.pipe(
  Layer.provide(
    servicesLayer(WalletRepo.layerSql).pipe(
      Layer.provideMerge(TestDatabaseOnUrl),
      Layer.provideMerge(Layer.merge(TestConfig(), settings))
    )
  ),
  Layer.fresh
)

const alertsReceived = Effect.map(
  Effect.service(FakeUpstream),
  (fake) => fake.calls.filter((call) => call.path === "/alerts")
)

layer(FirstInstance, live)("stuck items and the operator alert", (it) => {
  it.effect(
    "a stuck round, its bet and a notification out of attempts: each alerted once across two instances, counted, resolved",
    () =>
      Effect.scoped(Effect.gen(function*() {
        yield* Layer.build(SecondInstance)
        const acme = yield* givenWalletPartner(books)
        const ana = yield* givenPlayer(books, acme.partner.id, "stuck-ana", 100)

        // A notification that fails its one attempt: out of attempts at once.
        books.failNotifications = 1
        assert.strictEqual(walletAnswer(yield* winBet(ana.internalUserId, "stuck-win", { bet: 1, win: 2 })).msg, "")
        const sql = yield* SqlClient.SqlClient
        yield* eventually(
          sql<{ status: string }>`SELECT status FROM partner_callbacks WHERE event_id = ${
            transactionEventId("win", "stuck-win")
          }`.pipe(Effect.orDie),
          (rows) => rows[0]?.status === "failed",
          "the win out of attempts"
        )

        // A bet written pending by an instance that died: its round stays open, nobody recovers it here.
        const repo = yield* WalletRepo
        const opened = yield* repo.openBet({
          aggregator: "sandbox",
          currency: "BRL",
          kind: "bet",
          txnId: "stuck-bet",
          fingerprint: "stuck-bet",
          partnerId: acme.partner.id,
          environment: "live",
          playerId: ana.id,
          roundId: "stuck-round",
          debitTxnId: null,
          gameCode: "ag-hidden-fortune",
          providerCode: "aurora-gaming",
          bet: 500n,
          win: 0n
        }, ana).pipe(Effect.orDie)
        if (opened._tag !== "Opened") return assert.fail("the bet opened")

        // Each item is alerted once: the round, the bet, the notification (one of them a second time after the
        // endpoint's first refusal), whichever instance's check saw them.
        const byAlert = (calls: ReadonlyArray<RecordedCall>) => {
          const counts = new Map<string, number>()
          for (const call of calls) {
            counts.set(String(call.body.alert_id), (counts.get(String(call.body.alert_id)) ?? 0) + 1)
          }
          return counts
        }
        const sentRows = sql<
          { kind: string; alert_status: string }
        >`SELECT kind, alert_status FROM stuck_alerts ORDER BY kind`.pipe(Effect.orDie)
        yield* eventually(sentRows, (rows) =>
          rows.length === 3 && rows.every((row) => row.alert_status === "sent"), "three alerts sent")
        // Then every item is seen again by later checks, and nothing more is sent.
        yield* eventually(
          sql<
            { n: number }
          >`SELECT count(*)::int AS n FROM stuck_alerts WHERE last_seen_at > alerted_at + interval '1 second'`.pipe(
            Effect.orDie
          ),
          (rows) =>
            rows[0].n === 3,
          "each item seen again after its alert"
        )
        const calls = yield* alertsReceived
        const delivered = calls.slice(1)
        assert.deepStrictEqual(
          [...byAlert(delivered).values()],
          [1, 1, 1],
          `one delivered alert per item, got ${JSON.stringify([...byAlert(calls)])}`
        )
        assert.strictEqual(calls.length, 4, "three alerts, one of them sent twice after the endpoint refused it")
        assert.deepStrictEqual(
          delivered.map((call) =>
            call.body.kind
          ).sort(),
          ["bet", "notification", "round"]
        )
        for (const call of calls) {
          const headers = {
            timestamp: call.headers["x-alert-timestamp"] as string,
            signature: call.headers["x-alert-signature"] as string
          }
          assert.isTrue(verify(alertSecret, headers, call.raw, new Date()), "signed with OPERATOR_ALERT_SECRET")
          assert.strictEqual(call.headers["x-alert-id"], call.body.alert_id)
        }
        const round = delivered.find((call) => call.body.kind === "round")!.body
        assert.deepInclude(round, {
          partner: acme.partner.slug,
          environment: "live",
          subject: "stuck-round",
          external_player_id: "stuck-ana"
        })
        assert.match(round.console_url, /\/admin\/stuck$/)
        assert.strictEqual(
          delivered.find((call) => call.body.kind === "notification")!.body.subject,
          transactionEventId("win", "stuck-win")
        )

        // The metric counts them (read by the scrape).
        const scraped = parsePrometheusText(textBody(yield* request("GET", "/metrics")))
        const stuck = scraped.get("wallet_stuck_items")!.samples.filter((sample) =>
          sample.labels.environment === "live"
        )
        assert.deepStrictEqual(
          Object.fromEntries(stuck.map((sample) => [sample.labels.kind, sample.value])),
          { round: 1, bet: 1, notification: 1, amount: 0 }
        )

        // Settled (recovery's work, done here by hand), the round and its bet are resolved; the bet's rollback retries
        // the player's line, which delivers the win at last: resolved too. Nothing more is sent.
        const player = Option.getOrThrow(yield* (yield* PartnerPlayers).findById(ana.id))
        const { callbacks, outcome } = betSettlement(player, acme.partner.slug, betOf(opened.transaction), {
          _tag: "Unavailable",
          reason: "recovered"
        }, new Date())
        assert.isTrue(yield* repo.settleBet(opened.transaction, outcome, callbacks))
        const view = yield* eventually(
          (yield* StuckItems).view,
          (view) => view.resolved.length === 3 && view.items.length === 0,
          "everything resolved"
        )
        assert.deepStrictEqual(view.resolved.map((alert) => [alert.kind, alert.alertStatus]).sort(), [
          ["bet", "sent"],
          ["notification", "sent"],
          ["round", "sent"]
        ])
        assert.strictEqual(
          books.receivedFor(transactionEventId("win", "stuck-win")).length,
          2,
          "the win delivered on its second attempt"
        )
        assert.strictEqual((yield* alertsReceived).length, 4, "no alert for what was resolved")
      })),
    { timeout: 60_000 }
  )
})
