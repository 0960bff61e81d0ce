import { Effect, Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../api/Api.ts"
import { ok } from "../api/Envelope.ts"
import { NotFound } from "../api/Errors.ts"
import { encodeWith, page } from "../api/Paging.ts"
import { WalletRoundEntryCodec, WalletTransactionEntryCodec } from "../api/Wallet.ts"
import { CurrentPartner } from "../api/Security.ts"
import { WalletLedger } from "./WalletLedger.ts"

/** Reconciliation for partners: always scoped to the calling partner's own players, in its token's environment. */
export const WalletHandlers = HttpApiBuilder.group(
  PartnerApi,
  "wallet",
  Effect.fn(function*(handlers) {
    const ledger = yield* WalletLedger
    const transactionEntries = encodeWith(Schema.Array(WalletTransactionEntryCodec))
    const roundEntries = encodeWith(Schema.Array(WalletRoundEntryCodec))

    return handlers
      .handle("transactions", Effect.fn("WalletHandlers.transactions")(function*({ query }) {
        const partner = yield* CurrentPartner
        const paging = page(query)
        const { entries, total } = yield* ledger.transactions({ partnerId: partner.id, environment: partner.environment }, {
          externalPlayerId: query.external_player_id,
          roundId: query.round_id,
          kind: query.kind,
          status: query.status,
          from: query.from,
          to: query.to
        }, paging)
        return ok(partner, {
          transactions: yield* transactionEntries(entries),
          meta: { page: paging.page, per_page: paging.perPage, total }
        })
      }))
      .handle("transaction", Effect.fn("WalletHandlers.transaction")(function*({ params, query }) {
        const partner = yield* CurrentPartner
        const entries = yield* ledger.transaction({ partnerId: partner.id, environment: partner.environment }, params.transaction_id, query.kind)
        if (entries.length === 0) return yield* new NotFound({ message: "Transaction not found." })
        return ok(partner, { transactions: yield* transactionEntries(entries) })
      }))
      .handle("round", Effect.fn("WalletHandlers.round")(function*({ params, query }) {
        const partner = yield* CurrentPartner
        const rounds = yield* ledger.rounds({ partnerId: partner.id, environment: partner.environment }, params.round_id, query.external_player_id)
        if (rounds.length === 0) return yield* new NotFound({ message: "Round not found." })
        return ok(partner, { rounds: yield* roundEntries(rounds) })
      }))
  })
)
