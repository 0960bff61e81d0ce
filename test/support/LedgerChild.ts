/**
 * One instance of the ledger in a process of its own, for the crash tests of the wallet's events
 * (test/wallet/crash-events.test.ts): no aggregator route sends a Debit, a Credit or a named Rollback yet, so the test
 * hands them to the Wallet service here, in a process it can kill. The service's own layers over DATABASE_URL,
 * configured from the environment as main.ts is: the ledger, its notification worker and its recovery of pending bets.
 *
 * LEDGER_EVENTS: wallet events (domain/WalletEvents.ts) as a JSON array, handled one after the other in the live
 * environment; each outcome is written as a line `outcome <json>`. The worker and the recovery start once every event
 * is handled, so each event meets the database as the test (or a killed instance) left it, not as this instance's own
 * recovery made it; then the process delivers notifications until it is stopped.
 *
 * Run with `node test/support/LedgerChild.ts` (no vitest here: it is not a test file's module).
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import type { WalletEvent } from "../../src/domain/WalletEvents.ts"
import { CallbackTargetsLive, ConfigLive, SandboxCallbackUrlsLive } from "../../src/server.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import * as Database from "../../src/platform/Database.ts"
import * as Logging from "../../src/platform/Logging.ts"
import { CallbackOutbox } from "../../src/wallet/outbox/CallbackOutbox.ts"
import { CallbackWorker } from "../../src/wallet/outbox/CallbackWorker.ts"
import { OutboxRepo } from "../../src/wallet/outbox/OutboxRepo.ts"
import { PartnerCallbacks } from "../../src/wallet/outbox/PartnerCallbacks.ts"
import { Wallet } from "../../src/wallet/Wallet.ts"
import { WalletRecovery } from "../../src/wallet/WalletRecovery.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"

/** The ledger as server.ts builds it (callbacksLayer), without the routes and the areas it does not need. */
const LedgerLive = Wallet.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(WalletRepo.layerSql, CallbackOutbox.layer)),
  Layer.provideMerge(Layer.mergeAll(OutboxRepo.layerSql, PartnerCallbacks.layer, CallbackTargetsLive)),
  Layer.provideMerge(Layer.mergeAll(PartnerPlayers.layerSql, PartnerRepo.layerSql)),
  Layer.provide(SandboxCallbackUrlsLive)
)

// Written by the test (the events it means), so read as they are.
// Amounts (bigints of minor units) cross as their decimal text, both ways.
const events = JSON.parse(
  process.env.LEDGER_EVENTS ?? "[]",
  (key, value) => (key === "bet" || key === "win") && typeof value === "string" ? BigInt(value) : value
) as ReadonlyArray<WalletEvent>

const program = Effect.gen(function*() {
  const wallet = yield* Wallet
  yield* Console.log("ledger ready")
  for (const event of events) {
    const outcome = yield* wallet.handle(event, "live")
    yield* Console.log(
      `outcome ${JSON.stringify(outcome, (_key, value) => typeof value === "bigint" ? String(value) : value)}`
    )
  }
  yield* Layer.launch(Layer.merge(CallbackWorker, WalletRecovery))
})

program.pipe(
  Effect.provide(LedgerLive.pipe(Layer.provideMerge(Database.layer))),
  Effect.provide(Logging.layer),
  Effect.provide(ConfigLive),
  NodeRuntime.runMain
)
