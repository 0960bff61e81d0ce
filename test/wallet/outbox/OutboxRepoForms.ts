import { layer, type Vitest } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { PartnerPlayers } from "../../../src/partners/PartnerPlayers.ts"
import { PartnerRepo } from "../../../src/partners/PartnerRepo.ts"
import { CallbacksConfig } from "../../../src/wallet/CallbacksConfig.ts"
import { OutboxRepo } from "../../../src/wallet/outbox/OutboxRepo.ts"
import { WalletRepo } from "../../../src/wallet/WalletRepo.ts"
import { eventually, live } from "../../support/live.ts"
import { testCallbacksConfig } from "../../support/TestApp.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"

/** What an outbox repository spec runs on: the outbox, the wallet's repository that writes its notifications, players. */
export type OutboxRepoSpec = (it: Vitest.MethodsNonLive<WalletRepo | PartnerPlayers | OutboxRepo | PartnerRepo>) => void

const Config = Layer.succeed(CallbacksConfig, testCallbacksConfig())

/** Runs `spec` over both forms of the outbox: PostgreSQL (a database of the file's own) and memory. */
export const overBothForms = (subject: string, spec: OutboxRepoSpec) => {
  layer(
    Layer.mergeAll(WalletRepo.layerSql, OutboxRepo.layerSql).pipe(
      Layer.provideMerge(Layer.mergeAll(PartnerPlayers.layerSql, PartnerRepo.layerSql, Config)),
      Layer.provide(TestDatabase)
    ),
    live
  )(`${subject} over PostgreSQL`, spec)
  layer(
    OutboxRepo.layerMemory.pipe(
      Layer.provideMerge(WalletRepo.layerMemory),
      Layer.provideMerge(Layer.mergeAll(PartnerPlayers.layerMemory, PartnerRepo.layerMemory))
    ),
    live
  )(`${subject} over memory`, spec)
}

/** Until a statement of this database waits on a row lock (`what` names it in the failure). */
export const awaitLockWait = (what: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* eventually(
      sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`.pipe(Effect.orDie),
      ([row]) => row.n > 0,
      what
    )
  })
