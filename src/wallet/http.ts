import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../api/Api.ts"
import { ok } from "../api/Envelope.ts"
import { NotFound } from "../api/Errors.ts"
import { page } from "../api/Paging.ts"
import { CurrentPartner } from "../api/Security.ts"
import type { WalletCallbackEntry, WalletRoundEntry, WalletTransactionEntry } from "../api/Wallet.ts"
import { toAmount } from "../domain/Money.ts"
import type { CallbackRecord } from "./outbox/OutboxRepo.ts"
import { type LedgerEntry, type LedgerRound, WalletLedger } from "./WalletLedger.ts"

const iso = (date: Date | null) => date === null ? null : date.toISOString()

export const callbackJson = (callback: CallbackRecord): typeof WalletCallbackEntry.Type => ({
  event_id: callback.event_id,
  kind: callback.kind,
  status: callback.status,
  attempts: callback.attempts,
  last_error: callback.last_error,
  created_at: callback.created_at.toISOString(),
  delivered_at: iso(callback.delivered_at),
  next_attempt_at: iso(callback.next_attempt_at)
})

/** A ledger entry as partners (and the admin CLI) read it. */
export const entryJson = ({ callbacks, player, transaction: t }: LedgerEntry): typeof WalletTransactionEntry.Type => ({
  transaction_id: t.txnId,
  kind: t.kind,
  status: t.status,
  refusal: t.refusal,
  note: t.note,
  player: { external_player_id: player.external_player_id, user_code: player.internal_user_id },
  round_id: t.roundId,
  game: { code: t.gameCode, provider: t.providerCode },
  bet: toAmount(t.bet),
  win: toAmount(t.win),
  amount: toAmount(t.amount),
  balance_after: t.balanceAfter === null ? null : toAmount(t.balanceAfter),
  answer: t.answer,
  created_at: t.createdAt.toISOString(),
  settled_at: iso(t.settledAt),
  callbacks: callbacks.map(callbackJson)
})

export const roundJson = ({ entries, player, round }: LedgerRound): typeof WalletRoundEntry.Type => ({
  round_id: round.roundId,
  player: { external_player_id: player.external_player_id, user_code: player.internal_user_id },
  status: round.status,
  pending_bets: round.pendingBets,
  bet_total: toAmount(round.betTotal),
  win_total: toAmount(round.winTotal),
  refunded_early: round.refundedEarly,
  created_at: round.createdAt.toISOString(),
  updated_at: round.updatedAt.toISOString(),
  transactions: entries.map(entryJson)
})

/** Reconciliation for partners: always scoped to the calling partner's own players. */
export const WalletHandlers = HttpApiBuilder.group(
  PartnerApi,
  "wallet",
  Effect.fn(function*(handlers) {
    const ledger = yield* WalletLedger

    return handlers
      .handle("transactions", Effect.fn("WalletHandlers.transactions")(function*({ query }) {
        const partner = yield* CurrentPartner
        const paging = page(query)
        const { entries, total } = yield* ledger.transactions({ partnerId: partner.id }, {
          externalPlayerId: query.external_player_id,
          roundId: query.round_id,
          kind: query.kind,
          status: query.status,
          from: query.from,
          to: query.to
        }, paging)
        return ok(partner, {
          transactions: entries.map(entryJson),
          meta: { page: paging.page, per_page: paging.perPage, total }
        })
      }))
      .handle("transaction", Effect.fn("WalletHandlers.transaction")(function*({ params, query }) {
        const partner = yield* CurrentPartner
        const entries = yield* ledger.transaction({ partnerId: partner.id }, params.transaction_id, query.kind)
        if (entries.length === 0) return yield* new NotFound({ message: "Transaction not found." })
        return ok(partner, { transactions: entries.map(entryJson) })
      }))
      .handle("round", Effect.fn("WalletHandlers.round")(function*({ params, query }) {
        const partner = yield* CurrentPartner
        const rounds = yield* ledger.rounds({ partnerId: partner.id }, params.round_id, query.external_player_id)
        if (rounds.length === 0) return yield* new NotFound({ message: "Round not found." })
        return ok(partner, { rounds: rounds.map(roundJson) })
      }))
  })
)
