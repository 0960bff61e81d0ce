import { Effect, Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../api/Api.ts"
import { NotFound } from "../api/Errors.ts"
import { encodeWith, page } from "../api/Paging.ts"
import { WalletRoundEntryCodec, WalletTransactionEntryCodec } from "../api/Wallet.ts"
import { respond } from "../api/Respond.ts"
import { type LedgerFilter, type LedgerScope, ledgerScopeOf, WalletLedger } from "./WalletLedger.ts"

/** What a list of transactions asks for (the contract's query), as the ledger reads it. */
interface TransactionsQuery {
  readonly external_player_id?: string | undefined
  readonly round_id?: string | undefined
  readonly kind?: LedgerFilter["kind"]
  readonly status?: LedgerFilter["status"]
  readonly from?: Date | undefined
  readonly to?: Date | undefined
  readonly page?: number | undefined
  readonly per_page?: number | undefined
}

/**
 * A partner's ledger as the contract answers it (wire form: amounts in units, snake_case, ISO dates): a page of
 * transactions, one transaction id, a round. The partner API reads it for the token's partner and environment; the
 * partner portal, for the session's partner in the environment it names.
 */
export const ledgerReads = Effect.gen(function*() {
  const ledger = yield* WalletLedger
  const transactionEntries = encodeWith(Schema.Array(WalletTransactionEntryCodec))
  const roundEntries = encodeWith(Schema.Array(WalletRoundEntryCodec))
  return {
    transactions: Effect.fn("WalletReads.transactions")(function*(scope: LedgerScope, query: TransactionsQuery) {
      const paging = page(query)
      const { entries, total } = yield* ledger.transactions(scope, {
        externalPlayerId: query.external_player_id,
        roundId: query.round_id,
        kind: query.kind,
        status: query.status,
        from: query.from,
        to: query.to
      }, paging)
      return { transactions: yield* transactionEntries(entries), meta: { page: paging.page, per_page: paging.perPage, total } }
    }),
    transaction: Effect.fn("WalletReads.transaction")(function*(scope: LedgerScope, txnId: string, kind?: LedgerFilter["kind"]) {
      const entries = yield* ledger.transaction(scope, txnId, kind)
      if (entries.length === 0) return yield* new NotFound({ message: "Transaction not found." })
      return { transactions: yield* transactionEntries(entries) }
    }),
    round: Effect.fn("WalletReads.round")(function*(scope: LedgerScope, roundId: string, externalPlayerId?: string) {
      const rounds = yield* ledger.rounds(scope, roundId, externalPlayerId)
      if (rounds.length === 0) return yield* new NotFound({ message: "Round not found." })
      return { rounds: yield* roundEntries(rounds) }
    })
  }
})

/** Reconciliation for partners: always scoped to the calling partner's own players, in its token's environment. */
export const WalletHandlers = HttpApiBuilder.group(
  PartnerApi,
  "wallet",
  Effect.fn(function*(handlers) {
    const reads = yield* ledgerReads
    return handlers
      .handle("transactions", ({ query }) => respond((partner) => reads.transactions(ledgerScopeOf(partner), query)))
      .handle("transaction", ({ params, query }) =>
        respond((partner) => reads.transaction(ledgerScopeOf(partner), params.transaction_id, query.kind)))
      .handle("round", ({ params, query }) =>
        respond((partner) => reads.round(ledgerScopeOf(partner), params.round_id, query.external_player_id)))
  })
)
