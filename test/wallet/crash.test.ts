/**
 * The wallet across processes: an instance killed (SIGKILL) while it
 * delivers a notification or waits for a partner to take a stake, and one
 * stopped normally (SIGTERM) in the middle of a player's line. Other
 * instances on the same database carry on; the partner is paid once and
 * holds what the aggregator was told.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { givenCrashPartner, startCrashService } from "../support/CrashPartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { eventually, live } from "../support/live.ts"

const books = new PartnerBooks()

/** A database of the test's own, a way to start instances of the service on it, and a partner with one player. */
const given = (player: string, balance: number) =>
  Effect.gen(function*() {
    const { databaseUrl, sql, userCode } = yield* givenCrashPartner(books, "crash-partner", player, balance)
    const service = (env: Record<string, string> = {}) => startCrashService(databaseUrl, env)
    const first = yield* service({ PARTNER_CALLBACK_TIMEOUT: "60 seconds", WALLET_PENDING_TIMEOUT: "120 seconds" })
    const [agent] = yield* sql<{ value: string }>`SELECT value FROM service_secrets WHERE name = 'sandbox_agent_secret'`
    const winBet = (url: string, txnId: string, bet: number, win: number) =>
      Effect.promise(() =>
        fetch(`${url}/aggregator/wallet`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            type: "WinBet",
            user_code: userCode,
            agent_code: "sandbox",
            agent_secret: agent.value,
            slot: { txn_id: txnId, round_id: txnId, bet, win, game_code: "g", provider_code: "p" }
          })
        }).then((response) => response.status === 200 ? response.json() : { status: response.status })
      )
    return { first, service, sql, winBet }
  })

layer(Layer.merge(FakeUpstream.layer(books.script), NodeServices.layer), live)("instances that stop", (it) => {
  it.effect(
    "a crashed instance leaves its delivery to another instance, and the partner is paid once",
    () =>
      Effect.gen(function*() {
        const { first, service, sql, winBet } = yield* given("crash-player", 50)
        books.hangNotifications = true
        assert.deepStrictEqual(yield* winBet(first.url, "crash-win-1", 5, 20), { msg: "", balance: 65 })
        const win = transactionEventId("win", "crash-win-1")
        // The first instance is now delivering the win, and the partner keeps it waiting.
        yield* eventually(
          Effect.sync(() => books.receivedFor(win).length),
          (n) => n === 1,
          "the first delivery attempt"
        )
        process.kill(Number(first.handle.pid), "SIGKILL")
        books.hangNotifications = false

        const second = yield* service({ PARTNER_CALLBACK_STALE_LOCK: "2 seconds" })
        const delivered = yield* eventually(
          sql<{ status: string }>`SELECT status FROM partner_callbacks WHERE event_id = ${win}`,
          (rows) => rows[0]?.status === "delivered",
          "the delivery by the second instance"
        )
        assert.strictEqual(delivered[0].status, "delivered", second.output.join("\n"))
        assert.strictEqual(
          books.applied.filter((id) => id === win).length,
          1
        )
        assert.strictEqual(books.balanceOf("crash-player"), 6_500n)
      }).pipe(Effect.scoped, Effect.ensuring(Effect.sync(() => books.reset()))),
    { timeout: 120_000 }
  )

  it.effect(
    "an instance killed while a partner takes a stake: another refuses the bet and rolls it back",
    () =>
      Effect.gen(function*() {
        const { first, service, sql, winBet } = yield* given("killed-player", 40)
        books.behaviour = "slow"
        books.delayMillis = 30_000
        const unanswered = yield* Effect.forkChild(winBet(first.url, "killed-bet-1", 15, 0))
        const bet = transactionEventId("bet", "killed-bet-1")
        yield* eventually(Effect.sync(() => books.receivedFor(bet).length), (n) => n === 1, "the bet at the partner")
        assert.strictEqual(books.balanceOf("killed-player"), 2_500n, "the partner took the stake")
        process.kill(Number(first.handle.pid), "SIGKILL")
        yield* Effect.ignore(Fiber.await(unanswered))
        books.behaviour = "fine"

        const second = yield* service({ WALLET_PENDING_TIMEOUT: "3 seconds", PARTNER_CALLBACK_TIMEOUT: "1 second" })
        // The aggregator retries at the living instance: the bet (pending since the kill) is settled refused.
        const retried = yield* winBet(second.url, "killed-bet-1", 15, 0)
        assert.deepStrictEqual(retried, { msg: "INSUFFICIENT_USER_FUNDS", balance: 40 })
        yield* eventually(
          sql<{ status: string }>`SELECT status FROM partner_callbacks WHERE event_id = ${
            transactionEventId("rollback", "killed-bet-1")
          }`,
          (rows) => rows[0]?.status === "delivered",
          "the rollback delivered"
        )
        assert.strictEqual(books.balanceOf("killed-player"), 4_000n, "the partner holds what the aggregator was told")
        const [entry] = yield* sql<{ status: string; note: string }>`SELECT status, note FROM wallet_transactions`
        assert.deepStrictEqual(entry, { status: "refused", note: "recovered" })
      }).pipe(Effect.scoped, Effect.ensuring(Effect.sync(() => books.reset()))),
    { timeout: 120_000 }
  )

  it.effect(
    "a normal stop hands the rest of a player's line back: the next instance delivers it at once",
    () =>
      Effect.gen(function*() {
        const { first, service, sql, winBet } = yield* given("restart-player", 10)
        books.notificationDelayMillis = 1_000
        // Free rounds: the partner is asked nothing, so no wallet call delivers the line before asking (a stake does).
        for (const txn of ["restart-1", "restart-2", "restart-3"]) yield* winBet(first.url, txn, 0, 1)
        const wins = ["restart-1", "restart-2", "restart-3"].map((txn) => transactionEventId("win", txn))
        yield* eventually(Effect.sync(() => books.receivedFor(wins[0]).length), (n) => n === 1, "the first delivery")
        process.kill(Number(first.handle.pid), "SIGTERM")
        yield* first.handle.exitCode
        // It finished the notification it held and handed the rest back: the partner never saw the whole line from it.
        assert.isBelow(
          books.received.filter((callback) => callback.kind === "win").length,
          3,
          "it did not deliver the whole line"
        )
        const locked = yield* sql<{ id: string }>`
        SELECT player_id::text AS id FROM partner_callback_queues WHERE locked_by IS NOT NULL
      `
        assert.deepStrictEqual(locked, [], "no lock left behind")

        books.notificationDelayMillis = 0
        // The default stale-lock wait is 10 minutes: the rest is delivered long before it (eventually gives up at 20 s).
        yield* service()
        yield* eventually(
          Effect.sync(() => wins.every((win) => books.applied.includes(win))),
          (done) => done,
          "the rest"
        )
        for (const win of wins) {
          assert.strictEqual(
            books.applied.filter((id) => id === win).length,
            1
          )
        }
        assert.strictEqual(books.balanceOf("restart-player"), 1_300n)
      }).pipe(Effect.scoped, Effect.ensuring(Effect.sync(() => books.reset()))),
    { timeout: 120_000 }
  )
})
