/**
 * The ledger's atomic write in its two forms answers alike: the same spec (WalletRepoSpec.ts) over PostgreSQL and
 * over memory, WalletRepo with the players' mirror (PartnerPlayers) and the outbox reading its callbacks (OutboxRepo).
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { CallbacksConfig } from "../../src/wallet/CallbacksConfig.ts"
import { OutboxRepo } from "../../src/wallet/outbox/OutboxRepo.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { testCallbacksConfig } from "../support/TestApp.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { walletRepoSpec } from "./WalletRepoSpec.ts"

const Config = Layer.succeed(CallbacksConfig, testCallbacksConfig())

layer(
  Layer.mergeAll(WalletRepo.layerSql, OutboxRepo.layerSql).pipe(
    Layer.provideMerge(Layer.mergeAll(PartnerPlayers.layerSql, PartnerRepo.layerSql, Config)),
    Layer.provide(TestDatabase)
  )
)("the ledger's write over PostgreSQL", walletRepoSpec)

layer(
  OutboxRepo.layerMemory.pipe(
    Layer.provideMerge(WalletRepo.layerMemory),
    Layer.provideMerge(Layer.mergeAll(PartnerPlayers.layerMemory, PartnerRepo.layerMemory))
  )
)("the ledger's write over memory", walletRepoSpec)
