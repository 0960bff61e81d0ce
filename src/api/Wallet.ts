import { Effect, Schema, SchemaGetter } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { IsoDate } from "../domain/IsoDate.ts"
import { Envelope } from "./Envelope.ts"
import { NotFound } from "./Errors.ts"
import { encodeWith, page, PageMeta, PageQuery, PerPageQuery } from "./Paging.ts"
import { Callback } from "../domain/Callbacks.ts"
import { knownCurrency, storedCurrency } from "../domain/Currency.ts"
import { amountOnWire } from "../domain/Money.ts"
import { refusals } from "../domain/WalletEvents.ts"
import { StorableText } from "../domain/Text.ts"
import {
  LedgerEntry,
  LedgerPlayer,
  LedgerRound,
  type StoredOutcome,
  type TransactionKind,
  type TransactionStatus
} from "../domain/Wallet.ts"
import { RequestValidation } from "./RequestValidation.ts"

/**
 * Reconciliation: a partner reads back what the wallet did with its
 * players' money (each transaction, its round, the callbacks it caused and
 * whether they were delivered), to match against its own books.
 */

/** An amount on the wire, in its currency's units: a number for currencies of up to 3 decimals, a string beyond. */
export const Amount = Schema.Union([Schema.Finite, Schema.String]).annotate({
  description: "An amount in the entry's `currency`: a JSON number for currencies of up to 3 decimals (EUR 12.5, " +
    "JPY 1250), a decimal string beyond (BTC \"0.00000001\")"
})

// The wire's entries are the domain's ledger records (domain/Wallet.ts LedgerEntry, LedgerRound; domain/Callbacks.ts
// Callback) with their keys renamed at the edge, amounts from minor units to the currency's units (onWire, below)
// and dates as ISO strings.

/** A kept outcome as partners have always read it: `msg` empty or the refusal, and the balance in currency units. */
const Answer = Schema.Struct({ msg: Schema.Literals(["", ...refusals]), balance: Schema.optionalKey(Amount) })

/** A date on the wire: its ISO string. */
export { IsoDate }

export const WalletCallbackEntry = Schema.Struct({
  eventId: Callback.fields.eventId,
  kind: Callback.fields.kind,
  status: Callback.fields.status.annotate({
    description: "A bet is `delivered` when the partner answered it, `failed` when it could not be asked"
  }),
  attempts: Callback.fields.attempts,
  lastError: Callback.fields.lastError,
  createdAt: IsoDate,
  deliveredAt: Schema.NullOr(IsoDate),
  nextAttemptAt: Schema.NullOr(IsoDate)
}).pipe(Schema.encodeKeys({
  eventId: "event_id",
  lastError: "last_error",
  createdAt: "created_at",
  deliveredAt: "delivered_at",
  nextAttemptAt: "next_attempt_at"
}))

const WalletPlayer = Schema.Struct({
  externalPlayerId: LedgerPlayer.fields.externalPlayerId,
  internalUserId: LedgerPlayer.fields.internalUserId.annotate({
    description: "The player's user code at the casino aggregator"
  })
}).pipe(Schema.encodeKeys({ externalPlayerId: "external_player_id", internalUserId: "user_code" }))

/** A ledger entry's fields as the wire carries them, in the wire's order (the admin contract adds its own). */
export const transactionFields = {
  txnId: LedgerEntry.fields.txnId,
  kind: LedgerEntry.fields.kind,
  status: LedgerEntry.fields.status,
  refusal: Schema.NullOr(Schema.String).annotate({ description: "The code the aggregator was answered when refused" }),
  note: LedgerEntry.fields.note,
  player: WalletPlayer,
  roundId: LedgerEntry.fields.roundId,
  game: LedgerEntry.fields.game,
  currency: LedgerEntry.fields.currency.annotate({
    description: "The player's currency: every amount of the entry is in it"
  }),
  bet: Amount,
  win: Amount,
  amount: Amount.annotate({ description: "The change to the player's balance (0 unless applied)" }),
  balanceAfter: Schema.NullOr(Amount).annotate({
    description:
      "The player's balance once settled, as this service reckoned it; null while pending, and always for a " +
      "player of a partner in shadow mode (the service keeps no balance of theirs)"
  }),
  // The ledger's kept outcome, written as partners have always read it: `msg` and the balance in currency units.
  answer: Schema.NullOr(Answer).annotate({
    description: "What the aggregator was answered; null while pending. In shadow mode without `balance`: it was the " +
      "partner's own balance, passed through and not kept"
  }),
  createdAt: IsoDate,
  settledAt: Schema.NullOr(IsoDate)
}

export const transactionKeys = {
  txnId: "transaction_id",
  roundId: "round_id",
  balanceAfter: "balance_after",
  createdAt: "created_at",
  settledAt: "settled_at"
} as const

export const WalletTransactionEntryCodec = Schema.Struct({
  ...transactionFields,
  callbacks: Schema.Array(WalletCallbackEntry)
}).pipe(Schema.encodeKeys(transactionKeys))

export const WalletRoundEntryCodec = Schema.Struct({
  roundId: LedgerRound.fields.roundId,
  player: WalletPlayer,
  status: LedgerRound.fields.status,
  pendingBets: LedgerRound.fields.pendingBets,
  currency: LedgerRound.fields.currency,
  betTotal: Amount,
  winTotal: Amount,
  refundedEarly: LedgerRound.fields.refundedEarly.annotate({ description: "Refunded before any bet of it arrived" }),
  createdAt: IsoDate,
  updatedAt: IsoDate,
  transactions: Schema.Array(WalletTransactionEntryCodec)
}).pipe(Schema.encodeKeys({
  roundId: "round_id",
  pendingBets: "pending_bets",
  betTotal: "bet_total",
  winTotal: "win_total",
  refundedEarly: "refunded_early",
  createdAt: "created_at",
  updatedAt: "updated_at"
}))

// The contract declares the wire side, so the typed client reads what partners read (currency units,
// snake_case); the handlers encode the domain's records with the codecs above.
export const WalletTransactionEntry = Schema.toEncoded(WalletTransactionEntryCodec)
export const WalletRoundEntry = Schema.toEncoded(WalletRoundEntryCodec)

const examplePlayer = { external_player_id: "player-42", user_code: 1000123 }

const exampleTransaction: typeof WalletTransactionEntry.Encoded = {
  transaction_id: "txn-88231",
  kind: "bet",
  status: "applied",
  refusal: null,
  note: null,
  player: examplePlayer,
  round_id: "round-5521",
  game: { code: "vs20fruitsw", provider: "pragmatic-play" },
  currency: "BRL",
  bet: 10,
  win: 4.5,
  amount: -5.5,
  balance_after: 145,
  answer: { msg: "", balance: 145 },
  created_at: "2026-11-22T13:00:02.120Z",
  settled_at: "2026-11-22T13:00:02.410Z",
  callbacks: [{
    event_id: "evt_3b1f0c9a7d2e4f6a8b0c1d2e3f4a5b6c",
    kind: "bet",
    status: "delivered",
    attempts: 1,
    last_error: null,
    created_at: "2026-11-22T13:00:02.130Z",
    delivered_at: "2026-11-22T13:00:02.400Z",
    next_attempt_at: null
  }]
}

const isoMessage = "The :attribute field must be a date (YYYY-MM-DD) or a date-time in ISO 8601 (2026-11-22T13:00:00Z)."

/** A day (`2026-11-22`: its start for `from`, its end for `to`) or an ISO 8601 instant. */
export const instant = (edge: "start" | "end", description: string) =>
  Schema.String.annotate({ description, examples: [edge === "start" ? "2026-11-01" : "2026-11-22T13:00:00Z"] }).pipe(
    Schema.decodeTo(
      Schema.Date.check(Schema.makeFilter((date: Date) => !Number.isNaN(date.getTime()), { message: isoMessage })),
      {
        decode: SchemaGetter.transform((raw: string) => {
          const text = raw.trim()
          if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
            return new Date(`${text}T${edge === "start" ? "00:00:00.000" : "23:59:59.999"}Z`)
          }
          return /^\d{4}-\d{2}-\d{2}T/.test(text) ? new Date(text) : new Date(Number.NaN)
        }),
        encode: SchemaGetter.transform((date: Date) => date.toISOString())
      }
    )
  ).annotate({ message: isoMessage })

const currencyMessage =
  "The selected :attribute is invalid. Use a currency code such as BRL, EUR or BTC (codes are case-sensitive: mBTC)."

/**
 * A list's currency filter: a code this service knows (every ISO 4217 code with a minor unit, every crypto code),
 * enabled by this deployment or not, since rows of a code since disabled are still read back. Anything else is a 422
 * naming the field; a known code without rows is an empty list.
 */
export const currencyFilter = Schema.String.annotate({
  description: "Only the entries in this currency (its code, case-sensitive)",
  examples: ["BRL"]
}).check(
  Schema.makeFilter((code: string) => knownCurrency(code) !== undefined, { message: currencyMessage })
).annotate({ message: currencyMessage })

/** A transaction's kind as a filter: a credit and a rollback are the events of aggregators that send them (Hub88). */
const transactionKindFilter = Schema.Literals(["bet", "refund", "credit", "rollback"]).annotate({
  message: "The selected :attribute is invalid. Use bet, refund, credit or rollback."
})

/** What a list of transactions is filtered by (the partner portal lists them the same way). */
export const transactionsQuery = {
  external_player_id: Schema.optional(Schema.String.annotate({ examples: ["player-42"] })),
  currency: Schema.optional(currencyFilter),
  round_id: Schema.optional(Schema.String.annotate({ examples: ["round-5521"] })),
  kind: Schema.optional(
    transactionKindFilter
  ),
  status: Schema.optional(
    Schema.Literals(["pending", "applied", "refused"]).annotate({
      message: "The selected :attribute is invalid. Use pending, applied or refused."
    })
  ),
  from: Schema.optional(instant("start", "Created at or after (YYYY-MM-DD: from its start, or ISO 8601)")),
  to: Schema.optional(instant("end", "Created at or before (YYYY-MM-DD: to its end, or ISO 8601)")),
  page: Schema.optional(PageQuery),
  per_page: Schema.optional(PerPageQuery)
}

export class WalletGroup extends HttpApiGroup.make("wallet")
  .add(
    HttpApiEndpoint.get("transactions", "/wallet/transactions", {
      query: transactionsQuery,
      success: Envelope(
        "WalletTransactionsResponse",
        Schema.Struct({ transactions: Schema.Array(WalletTransactionEntry), meta: PageMeta }),
        { example: { transactions: [exampleTransaction], meta: { page: 1, per_page: 50, total: 1 } } }
      )
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "The wallet transactions of the partner's players, newest first",
      description: "Filtered by player, currency, round, kind, status and a creation time range, paged."
    }))
  )
  .add(
    HttpApiEndpoint.get("transaction", "/wallet/transactions/:transaction_id", {
      params: { transaction_id: StorableText },
      query: {
        kind: Schema.optional(
          transactionKindFilter
        )
      },
      success: Envelope(
        "WalletTransactionResponse",
        Schema.Struct({ transactions: Schema.Array(WalletTransactionEntry) }),
        { example: { transactions: [exampleTransaction] } }
      ),
      error: NotFound
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "One transaction id: every transaction of the partner's players that carried it",
      description: "A transaction is its kind and its id, so a refund may carry its bet's id: both are listed " +
        "(narrow with `kind`: bet, refund, credit or rollback). 404 when none of the partner's players has one."
    }))
  )
  .add(
    HttpApiEndpoint.get("round", "/wallet/rounds/:round_id", {
      params: { round_id: StorableText },
      query: { external_player_id: Schema.optional(Schema.String) },
      success: Envelope("WalletRoundResponse", Schema.Struct({ rounds: Schema.Array(WalletRoundEntry) }), {
        example: {
          rounds: [{
            round_id: "round-5521",
            player: examplePlayer,
            status: "settled",
            pending_bets: 0,
            currency: "BRL",
            bet_total: 10,
            win_total: 4.5,
            refunded_early: false,
            created_at: "2026-11-22T13:00:02.120Z",
            updated_at: "2026-11-22T13:00:02.410Z",
            transactions: [exampleTransaction]
          }]
        }
      }),
      error: NotFound
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "A round with its transactions",
      description: "Rounds are per player: the same round id of two players is two rounds (narrow with " +
        "`external_player_id`). 404 when none of the partner's players has it."
    }))
  )
  .annotateMerge(OpenApi.annotations({
    description: "Reconciliation: what the wallet did with the partner's players' money, and the callbacks it sent."
  }))
{}

// The edge: a ledger query as the ledger takes it, and its answers as the contract writes them (amounts in units,
// snake_case, ISO dates). The partner API and the partner portal answer the same.

/** A list of transactions as asked for (the contract's query), as the ledger reads it. */
export const ledgerQueryOf = (query: {
  readonly external_player_id?: string | undefined
  readonly currency?: string | undefined
  readonly round_id?: string | undefined
  readonly kind?: TransactionKind | undefined
  readonly status?: TransactionStatus | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
  readonly page?: number | undefined
  readonly per_page?: number | undefined
}) => ({
  filter: {
    externalPlayerId: query.external_player_id,
    currency: query.currency,
    roundId: query.round_id,
    kind: query.kind,
    status: query.status,
    from: query.from,
    to: query.to
  },
  page: page(query)
})

/** A ledger entry with its amounts in its currency's units, as the wire's codecs take it. */
export const entryOnWire = (entry: LedgerEntry) => {
  const currency = storedCurrency(entry.currency)
  const onWire = (minor: bigint) => amountOnWire(minor, currency)
  return {
    ...entry,
    bet: onWire(entry.bet),
    win: onWire(entry.win),
    amount: onWire(entry.amount),
    balanceAfter: entry.balanceAfter === null ? null : onWire(entry.balanceAfter),
    answer: entry.answer === null ? null : answerOnWire(entry.answer, onWire)
  }
}

const answerOnWire = (answer: StoredOutcome, onWire: (minor: bigint) => number | string) => ({
  msg: answer.refusal ?? "" as const,
  ...(answer.balance === undefined ? {} : { balance: onWire(answer.balance) })
})

const roundOnWire = (round: LedgerRound) => {
  const currency = storedCurrency(round.currency)
  return {
    ...round,
    betTotal: amountOnWire(round.betTotal, currency),
    winTotal: amountOnWire(round.winTotal, currency),
    transactions: round.transactions.map(entryOnWire)
  }
}

const encodeTransactions = encodeWith(Schema.Array(WalletTransactionEntryCodec))
const transactionEntries = (entries: ReadonlyArray<LedgerEntry>) => encodeTransactions(entries.map(entryOnWire))
const encodeRounds = encodeWith(Schema.Array(WalletRoundEntryCodec))
const roundEntries = (rounds: ReadonlyArray<LedgerRound>) => encodeRounds(rounds.map(roundOnWire))

/** A page of transactions. */
export const transactionsAnswer =
  (paging: { readonly page: number; readonly perPage: number }) =>
  (found: { readonly entries: ReadonlyArray<LedgerEntry>; readonly total: number }) =>
    Effect.map(transactionEntries(found.entries), (transactions) => ({
      transactions,
      meta: { page: paging.page, per_page: paging.perPage, total: found.total }
    }))

/** One transaction id's entries (a bet and its refund, say), or a 404. */
export const transactionAnswer = (entries: ReadonlyArray<LedgerEntry>) =>
  entries.length === 0
    ? Effect.fail(new NotFound({ message: "Transaction not found." }))
    : Effect.map(transactionEntries(entries), (transactions) => ({ transactions }))

/** A round id's rounds (players may share a round id; one a player), or a 404. */
export const roundsAnswer = (found: ReadonlyArray<LedgerRound>) =>
  found.length === 0
    ? Effect.fail(new NotFound({ message: "Round not found." }))
    : Effect.map(roundEntries(found), (rounds) => ({ rounds }))
