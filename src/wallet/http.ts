import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../api/Api.ts"
import { servedApi } from "../platform/QueryOnce.ts"
import { respond } from "../api/Respond.ts"
import { ledgerQueryOf, roundsAnswer, transactionAnswer, transactionsAnswer } from "../api/Wallet.ts"
import type { TransactionKind } from "../domain/Wallet.ts"
import { type LedgerScope, ledgerScopeOf, WalletLedger } from "./WalletLedger.ts"

/**
 * A partner's ledger as the contract answers it: a page of transactions, one transaction id, a round. The partner
 * API reads it for the token's partner and environment; the partner portal, for the session's partner in the
 * environment it names.
 */
export const ledgerReads = Effect.map(Effect.service(WalletLedger), (ledger) => ({
  transactions: (scope: LedgerScope, query: Parameters<typeof ledgerQueryOf>[0]) => {
    const { filter, page } = ledgerQueryOf(query)
    return Effect.flatMap(ledger.transactions(scope, filter, page), transactionsAnswer(page))
  },
  transaction: (scope: LedgerScope, txnId: string, kind?: TransactionKind) =>
    Effect.flatMap(ledger.transaction(scope, txnId, kind), transactionAnswer),
  round: (scope: LedgerScope, roundId: string, externalPlayerId?: string) =>
    Effect.flatMap(ledger.rounds(scope, roundId, externalPlayerId), roundsAnswer)
}))

/** Reconciliation for partners: always scoped to the calling partner's own players, in its token's environment. */
export const WalletHandlers = HttpApiBuilder.group(
  servedApi(PartnerApi),
  "wallet",
  Effect.fn(function*(handlers) {
    const reads = yield* ledgerReads
    return handlers
      .handle("transactions", ({ query }) => respond((partner) => reads.transactions(ledgerScopeOf(partner), query)))
      .handle(
        "transaction",
        ({ params, query }) =>
          respond((partner) => reads.transaction(ledgerScopeOf(partner), params.transaction_id, query.kind))
      )
      .handle(
        "round",
        ({ params, query }) =>
          respond((partner) => reads.round(ledgerScopeOf(partner), params.round_id, query.external_player_id))
      )
  })
)
