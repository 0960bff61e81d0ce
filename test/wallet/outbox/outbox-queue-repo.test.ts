/**
 * The players' delivery queues in their two forms answer alike: the same spec (OutboxQueueSpec.ts) over PostgreSQL
 * and over memory, the notifications written by the wallet's repository of the same form.
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { PartnerPlayers } from "../../../src/partners/PartnerPlayers.ts"
import { PartnerRepo } from "../../../src/partners/PartnerRepo.ts"
import { CallbacksConfig } from "../../../src/wallet/CallbacksConfig.ts"
import { OutboxRepo } from "../../../src/wallet/outbox/OutboxRepo.ts"
import { WalletRepo } from "../../../src/wallet/WalletRepo.ts"
import { live } from "../../support/live.ts"
import { testCallbacksConfig } from "../../support/TestApp.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { outboxQueueSpec } from "./OutboxQueueSpec.ts"

const Config = Layer.succeed(CallbacksConfig, testCallbacksConfig())

layer(
  Layer.mergeAll(WalletRepo.layerSql, OutboxRepo.layerSql).pipe(
    Layer.provideMerge(Layer.mergeAll(PartnerPlayers.layerSql, PartnerRepo.layerSql, Config)),
    Layer.provide(TestDatabase)
  ),
  live
)("the delivery queues over PostgreSQL", outboxQueueSpec)

layer(
  OutboxRepo.layerMemory.pipe(
    Layer.provideMerge(WalletRepo.layerMemory),
    Layer.provideMerge(Layer.mergeAll(PartnerPlayers.layerMemory, PartnerRepo.layerMemory))
  ),
  live
)("the delivery queues over memory", outboxQueueSpec)
