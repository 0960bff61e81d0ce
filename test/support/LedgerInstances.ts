/**
 * Ledger instances as the crash tests start and kill them: a process (LedgerChild.ts) that handles the wallet events
 * it is given on a test's own database, then delivers notifications and recovers pending bets until killed. Events
 * and outcomes cross to and from it as JSON, where an amount (a bigint of minor units) is its decimal text.
 */
import { Effect } from "effect"
import type { WalletEvent, WalletOutcome } from "../../src/domain/WalletEvents.ts"
import { givenCrashPartner } from "./CrashPartner.ts"
import type { PartnerBooks } from "./FakePartner.ts"
import { eventually } from "./live.ts"
import { type RunningProcess, startNode } from "./process.ts"

const minorAsText = (_key: string, value: unknown) => typeof value === "bigint" ? String(value) : value
/** `bet`, `win` and `balance` are read back as bigints. */
const minorFromText = (key: string, value: unknown) =>
  (key === "bet" || key === "win" || key === "balance") && typeof value === "string" ? BigInt(value) : value

/** The outcomes a ledger instance has written so far, in the order it handled its events. */
export const outcomesOf = (instance: RunningProcess): Array<WalletOutcome> =>
  instance.output.filter((line) => line.startsWith("outcome ")).map((line) => JSON.parse(line.slice(8), minorFromText))

/** Waits until the instance has handled `n` events; their outcomes. */
export const awaitOutcomes = (instance: RunningProcess, n: number) =>
  eventually(Effect.sync(() => outcomesOf(instance)), (outcomes) => outcomes.length >= n, `${n} outcomes`)

/** A database of the test's own (named after `name`) with a partner and one player, and a way to start instances. */
export const givenLedgerInstances = (books: PartnerBooks, name: string, external: string, start: number) =>
  Effect.gen(function*() {
    const { databaseUrl, playerId, sql, userCode } = yield* givenCrashPartner(books, name, external, start)
    /** A ledger instance that handles `events`, then delivers notifications and recovers pending bets until killed. */
    const ledger = (events: ReadonlyArray<WalletEvent>, env: Record<string, string>) =>
      startNode(["test/support/LedgerChild.ts"], {
        DATABASE_URL: databaseUrl,
        PARTNER_CALLBACK_ALLOW_PRIVATE: "true",
        LEDGER_EVENTS: JSON.stringify(events, minorAsText),
        ...env
      }, /ledger ready/)
    return { ledger, player: { external, playerId, start }, sql, userCode }
  })

/** A SIGKILL: the instance stops mid-step, as a crash stops it. */
export const kill = (instance: RunningProcess) =>
  Effect.sync(() => process.kill(Number(instance.handle.pid), "SIGKILL"))
