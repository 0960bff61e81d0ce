import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AdminApi } from "../../api/admin/AdminApi.ts"
import { Conflict, NotFound } from "../../api/admin/AdminErrors.ts"
import { viewOf } from "../../domain/Callbacks.ts"
import type { LedgerEntry } from "../../domain/Wallet.ts"
import { CallbackOutbox } from "../../wallet/outbox/CallbackOutbox.ts"
import { WalletLedger } from "../../wallet/WalletLedger.ts"
import { Partners } from "../../partners/Partners.ts"
import { page } from "../../api/Paging.ts"
import { entryOnWire } from "../../api/Wallet.ts"
import { CallbackAdmin } from "../../changes/CallbackAdmin.ts"
import { currentActor, invalid } from "./Common.ts"

export const AdminWalletHandlers = HttpApiBuilder.group(
  AdminApi,
  "wallet",
  Effect.fn(function*(handlers) {
    const ledger = yield* WalletLedger
    const partners = yield* Partners
    const outbox = yield* CallbackOutbox
    const changes = yield* CallbackAdmin

    /** Ledger entries as the operator reads them: whose partner, and each callback with its id and body. */
    const entries = Effect.fnUntraced(function*(found: ReadonlyArray<LedgerEntry>, withAge = false) {
      const slugs = new Map((yield* partners.list).map((partner) => [partner.id, partner.slug]))
      return found.map((entry) => {
        const partner = slugs.get(entry.partnerId) ?? ""
        return {
          ...entryOnWire(entry),
          partner,
          ...(withAge ? { pendingSeconds: Math.round(entry.ageMillis / 1000) } : {}),
          callbacks: entry.callbacks.map((callback) => viewOf(callback, partner, entry.player.externalPlayerId))
        }
      })
    })

    /** A partner named by slug; an unknown one is a 404, not an empty list that looks like "nothing happened". */
    const partnerId = (slug: string | undefined) =>
      slug === undefined || slug.trim() === ""
        ? Effect.succeed(undefined)
        : partners.show(slug.trim()).pipe(
          Effect.map((partner) => partner.id),
          Effect.mapError((error) => new NotFound({ message: error.message }))
        )
    const text = (value: string | undefined) => value === undefined || value.trim() === "" ? undefined : value.trim()

    return handlers
      .handle(
        "transactions",
        Effect.fn("AdminHandlers.transactions")(function*({ query }) {
          const id = yield* partnerId(query.partner)
          const player = text(query.player)
          if (player !== undefined && id === undefined) {
            return yield* invalid("player", "Choose the player's partner too: player ids are the partner's own.")
          }
          const paging = page(query)
          const txn = text(query.transaction_id)
          // Both environments unless one is chosen; a player id names a live player unless test is chosen.
          const scope = { partnerId: id, environment: query.environment }
          if (txn !== undefined) {
            const found = (yield* ledger.transaction(scope, txn, query.kind)).filter((entry) =>
              query.currency === undefined || entry.currency === query.currency
            )
            return {
              success: true as const,
              transactions: yield* entries(found),
              meta: { page: 1, per_page: paging.perPage, total: found.length }
            }
          }
          const found = yield* ledger.transactions(scope, {
            externalPlayerId: player,
            currency: query.currency,
            roundId: text(query.round_id),
            kind: query.kind,
            status: query.status,
            from: query.from,
            to: query.to
          }, paging)
          return {
            success: true as const,
            transactions: yield* entries(found.entries),
            meta: { page: paging.page, per_page: paging.perPage, total: found.total }
          }
        })
      )
      .handle("pending", () =>
        Effect.map(
          Effect.flatMap(ledger.pending(200), (found) => entries(found, true)),
          (transactions) => ({ success: true as const, transactions })
        ))
      .handle(
        "callbacks",
        Effect.fn("AdminHandlers.callbacks")(function*({ query }) {
          const id = yield* partnerId(query.partner)
          const found = yield* outbox.list({ status: query.status, partnerId: id, limit: query.limit ?? 100 })
          return { success: true as const, callbacks: found }
        })
      )
      .handle(
        "redeliver",
        ({ params }) =>
          Effect.flatMap(currentActor, (actor) => changes.redeliver(actor, params.id)).pipe(
            Effect.catchTags({
              CallbackNotFound: (error) => Effect.fail(new NotFound({ message: error.message })),
              CallbackNotReplayable: (error) => Effect.fail(new Conflict({ message: error.message }))
            }),
            Effect.map((callback) => ({ success: true as const, callback }))
          )
      )
  })
)
