import { Layer } from "effect"
import { CallbackAdmin } from "../../src/changes/CallbackAdmin.ts"
import { CasinoAdmin } from "../../src/changes/CasinoAdmin.ts"
import { CasinoSyncAdmin } from "../../src/changes/CasinoSyncAdmin.ts"
import { PartnerAdmin } from "../../src/changes/PartnerAdmin.ts"
import { AdminAccounts } from "../../src/identity/AdminAccounts.ts"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"
import { CertificationAdmin } from "../../src/changes/CertificationAdmin.ts"
import { PartnerUsers } from "../../src/identity/PartnerUsers.ts"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import * as CasinoGatewaySelection from "../../src/integrations/CasinoGatewaySelection.ts"
import { CatalogSync } from "../../src/casino/CatalogSync.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { SandboxCasinoGatewayLive } from "../../src/integrations/sandbox/Sandbox.ts"
import { CallbackTargetsLive, SandboxCallbackUrlsLive } from "../../src/processLayers.ts"
import { CertificationRepo } from "../../src/wallet/certification/CertificationRepo.ts"
import { Certifications } from "../../src/wallet/certification/Certifications.ts"
import { CallbackOutbox } from "../../src/wallet/outbox/CallbackOutbox.ts"
import { OutboxRepo } from "../../src/wallet/outbox/OutboxRepo.ts"
import { PartnerCallbacks } from "../../src/wallet/outbox/PartnerCallbacks.ts"
import { TestData } from "../../src/wallet/TestData.ts"
import { WalletLedger } from "../../src/wallet/WalletLedger.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"

/**
 * What each group of admin commands needs, and no more: `partners list`
 * builds the partners, not the casino gateway or the sports provider.
 * Each needs the database and the configuration.
 */
export const AdminLayers = {
  /**
   * Partners, changed through the audited PartnerAdmin, with their portal users (PartnerUsers) and their wallet
   * certification setting (CertificationAdmin).
   */
  partners: Layer.mergeAll(PartnerAdmin.layer, PartnerUsers.layer, CertificationAdmin.layer).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        Partners.layer,
        AuditRepo.layerSql,
        PartnerPlayers.layerSql,
        TestData.layerSql,
        CertificationRepo.layerSql
      )
    ),
    Layer.provide(SandboxCallbackUrlsLive)
  ),
  /** A wallet certification run, sent from the CLI's own process to the partner's test wallet. */
  certification: Certifications.layer.pipe(
    Layer.provideMerge(Partners.layer),
    Layer.provide(Layer.mergeAll(PartnerCallbacks.layer, CallbackTargetsLive, PartnerPlayers.layerSql)),
    Layer.provide(SandboxCallbackUrlsLive)
  ),
  admins: AdminAccounts.layer,
  audit: AuditRepo.layerSql,
  casinoCatalog: CasinoAdmin.layer.pipe(Layer.provideMerge(Layer.merge(CasinoCatalog.layer, AuditRepo.layerSql))),
  /** A sync asks the gateway; the sandbox's opens the demo wallet of players it knows. */
  casinoSync: CasinoSyncAdmin.layer.pipe(
    Layer.provideMerge(Layer.merge(CatalogSync.layer, AuditRepo.layerSql)),
    Layer.provide(Layer.mergeAll(CasinoCatalog.layer, CasinoGatewaySelection.layer(SandboxCasinoGatewayLive))),
    Layer.provide(Layer.mergeAll(PartnerPlayers.layerSql, CallbackTargetsLive))
  ),
  callbacks: CallbackAdmin.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(CallbackOutbox.layer, Partners.layer, AuditRepo.layerSql)),
    Layer.provide(
      Layer.mergeAll(OutboxRepo.layerSql, PartnerCallbacks.layer, CallbackTargetsLive, PartnerPlayers.layerSql)
    ),
    Layer.provide(SandboxCallbackUrlsLive)
  ),
  wallet: WalletLedger.layer.pipe(
    Layer.provide(WalletRepo.layerSql),
    Layer.provide(Layer.mergeAll(OutboxRepo.layerSql, PartnerPlayers.layerSql))
  )
}
