import { Schema } from "effect"
import { createHash, randomBytes } from "node:crypto"
import type { Aggregator } from "./Aggregator.ts"
import { Environment } from "./Environment.ts"
import type { Currency } from "./Currency.ts"
import { amountOnWire, type Minor, signedMinorOf } from "./Money.ts"

/**
 * The callbacks a partner receives at its callback_url. `balance` and `bet`
 * are answered at once with the player's balance; `win`, `refund` and
 * `rollback` are notifications, delivered at least once and in order per
 * player, and need only a 2xx.
 */
export type CallbackKind = "balance" | "bet" | "win" | "refund" | "rollback"

/**
 * The headers every callback carries beside its JSON body (src/wallet/outbox/Signature.ts signs with them), and the
 * one a wallet certification's calls add. Here, in the domain, so the contract's documents name them as sent.
 */
export const callbackHeaders = {
  eventId: "x-partner-event-id",
  timestamp: "x-partner-timestamp",
  signature: "x-partner-signature"
} as const

// The bodies' schemas: what the builders below write (each builder's object is checked against its schema's
// encoded type) and what the partner API's OpenAPI documents describe as its webhooks (src/api/Webhooks.ts).

/** An amount as amountOnWire writes it: a JSON number up to 3 decimals, a decimal string at full scale beyond. */
const WireAmount = Schema.Union([Schema.Finite, Schema.String]).annotate({
  description: "In the body's `currency`, exactly: a JSON number for currencies of up to 3 decimals (`12.5`), a " +
    "decimal string at the currency's full scale beyond (`\"0.00000001\"`)."
})

const commonFields = {
  event_id: Schema.String.annotate({
    description: "The event's id (also in `X-Partner-Event-Id`): apply each once, and answer a repeat as the first"
  }),
  created_at: Schema.String.annotate({ description: "When the event was decided (ISO 8601, UTC)" }),
  partner: Schema.String.annotate({ description: "Your partner slug" }),
  player: Schema.Struct({
    external_player_id: Schema.String.annotate({ description: "Your id of the player" }),
    user_code: Schema.Int.annotate({ description: "The player's user code at the aggregator (one per currency)" })
  }),
  currency: Schema.String.annotate({ description: "The player's currency: every amount of the body is in it" }),
  certification: Schema.optionalKey(
    Schema.Struct({ run: Schema.String, case: Schema.String }).annotate({
      description: "Only on a wallet certification's calls: the run and its case (signed with the body)"
    })
  )
}

const transactionFields = {
  transaction_id: Schema.String.annotate({ description: "The aggregator's transaction id" }),
  round_id: Schema.NullOr(Schema.String),
  game: Schema.Struct({ code: Schema.NullOr(Schema.String), provider: Schema.NullOr(Schema.String) })
}

const statedBalance = Schema.optionalKey(WireAmount.annotate({
  description: "The player's balance after it as this service reckons it (absent for a shadow player)"
}))

export const BalanceCallback = Schema.Struct({ ...commonFields, kind: Schema.Literal("balance") }).annotate({
  identifier: "BalanceCallback",
  description: "Answer the player's balance in `currency`."
})

export const BetCallback = Schema.Struct({
  ...commonFields,
  kind: Schema.Literal("bet"),
  ...transactionFields,
  amount: WireAmount.annotate({ description: "The stake to take" })
}).annotate({
  identifier: "BetCallback",
  description: "Take `amount` from the player's balance and answer the balance after it, or refuse."
})

export const WinCallback = Schema.Struct({
  ...commonFields,
  kind: Schema.Literal("win"),
  ...transactionFields,
  amount: WireAmount.annotate({ description: "The win to credit" }),
  balance: statedBalance
}).annotate({ identifier: "WinCallback", description: "Credit `amount`; answer any 2xx." })

export const RefundCallback = Schema.Struct({
  ...commonFields,
  kind: Schema.Literal("refund"),
  ...transactionFields,
  amount: WireAmount.annotate({
    description: "What to apply: the round's stake back less its win (negative when the win was larger)"
  }),
  bet: WireAmount,
  win: WireAmount,
  balance: statedBalance
}).annotate({ identifier: "RefundCallback", description: "The round `round_id` is undone: apply `amount`." })

export const RollbackCallback = Schema.Struct({
  ...commonFields,
  kind: Schema.Literal("rollback"),
  ...transactionFields,
  amount: WireAmount.annotate({ description: "The stake to give back, if you took it" }),
  rolls_back: Schema.String.annotate({ description: "The event id of the bet it undoes" })
}).annotate({
  identifier: "RollbackCallback",
  description: "The bet `rolls_back` was refused to the player: if you applied it, give `amount` back; if you " +
    "have not seen it, record the rollback and refuse that bet if it arrives later."
})

export const TestCallback = Schema.Struct({
  event_id: Schema.String,
  kind: Schema.Literal("test"),
  created_at: Schema.String,
  partner: Schema.String,
  environment: Environment,
  message: Schema.String
}).annotate({
  identifier: "TestCallback",
  description: "Sent when you (or your operator) ask for a test callback: it moves no money; answer any 2xx."
})

/** What a partner answers a `balance` or a `bet` (PartnerCallbacks reads it, exactly, in the body's currency). */
export const CallbackAnswer = Schema.Struct({
  balance: Schema.optionalKey(Schema.NullOr(WireAmount)),
  error: Schema.optionalKey(
    Schema.NullOr(Schema.String).annotate({
      description: "A refusal: `insufficient_funds` (with the balance) or `unknown_player`"
    })
  )
}).annotate({ identifier: "CallbackAnswer" })

export const CallbackStatus = Schema.Literals(["pending", "delivered", "failed"])
export type CallbackStatus = typeof CallbackStatus.Type

/**
 * A callback the outbox recorded, with its delivery state: a bet (asked
 * during the aggregator's call, `delivered` when the partner answered it,
 * `failed` when it could not be asked) or a notification (win, refund,
 * rollback) that waits in its player's delivery queue until delivered.
 */
export const Callback = Schema.Struct({
  id: Schema.Int,
  eventId: Schema.String,
  partnerId: Schema.Int,
  /** Its player's environment: where it is delivered (that environment's callback URL). */
  environment: Environment,
  playerId: Schema.Int,
  kind: Schema.Literals(["bet", "win", "refund", "rollback"]),
  txnId: Schema.String,
  /** The wallet transaction that caused it (null for rows older than that link). */
  transactionRef: Schema.NullOr(Schema.Int),
  status: CallbackStatus,
  attempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  createdAt: Schema.Date,
  deliveredAt: Schema.NullOr(Schema.Date),
  /** When its player's delivery queue runs next, while it is pending. */
  nextAttemptAt: Schema.NullOr(Schema.Date),
  /** The JSON body, byte for byte as every attempt sends it. */
  body: Schema.String
})
export type Callback = typeof Callback.Type

/**
 * What a notification waiting in its player's delivery queue will credit once the partner applies it: a win's amount, a
 * refund's (negative when the round paid more than it took). A rollback's is not counted: it gives a stake back only
 * if the partner took the bet, which nobody here knows until it is delivered. Bodies are this service's own JSON.
 */
export const creditOf = (callback: Pick<Callback, "kind" | "body">, currency: Currency): Minor => {
  if (callback.kind !== "win" && callback.kind !== "refund") return 0n
  // A number this service wrote holds its amount exactly (amountOnWire); a string is its exact text.
  const text = String((JSON.parse(callback.body) as { readonly amount: number | string }).amount)
  const minor = signedMinorOf(text, currency)
  if (minor === undefined) throw new Error(`Not an amount this service wrote in ${currency.code}: ${text}`)
  return minor
}

/** A notification can be sent again; a bet, answered during the aggregator's call, never. */
export const isRedeliverable = (callback: Pick<Callback, "kind">) => callback.kind !== "bet"

/** A callback as an operator reads it: whose partner (slug) and player (the partner's id), and whether it can be sent again. */
export const CallbackView = Schema.Struct({
  ...Callback.fields,
  partner: Schema.String,
  externalPlayerId: Schema.String,
  redeliverable: Schema.Boolean
})
export type CallbackView = typeof CallbackView.Type

export const viewOf = (callback: Callback, partner: string, externalPlayerId: string): CallbackView => ({
  ...callback,
  partner,
  externalPlayerId,
  redeliverable: isRedeliverable(callback)
})

/**
 * A test callback as the delivery log shows it: sent once on a partner user's or an operator's request, never retried,
 * so `delivered` when the partner answered 2xx and `failed` otherwise. It is kept in the audit trail, where every
 * send is recorded, not in the outbox (it moves no money and waits in no player's line); sends recorded before the
 * trail kept their event id and body have neither.
 */
export const TestCallbackView = Schema.Struct({
  eventId: Schema.NullOr(Schema.String),
  partner: Schema.String,
  environment: Environment,
  kind: Schema.Literal("test"),
  status: Schema.Literals(["delivered", "failed"]),
  attempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  createdAt: Schema.Date,
  deliveredAt: Schema.NullOr(Schema.Date),
  body: Schema.NullOr(Schema.String)
})
export type TestCallbackView = typeof TestCallbackView.Type

/** A callback to record with the wallet decision that caused it. */
export interface NewCallback {
  readonly partnerId: number
  /** Its player's environment. */
  readonly environment: Environment
  readonly playerId: number
  readonly kind: Exclude<CallbackKind, "balance">
  readonly txnId: string
  readonly eventId: string
  readonly body: string
  /**
   * A bet is asked during the wallet call and recorded as answered: `error` is
   * null when the partner answered, otherwise why it could not be asked.
   * Notifications (win, refund, rollback) have no `asked`: they wait for delivery.
   */
  readonly asked?: { readonly error: string | null } | undefined
}

export interface CallbackParty {
  readonly partnerSlug: string
  readonly externalPlayerId: string
  readonly userCode: number
  /** The player's currency: every amount of the body is in it, and the body says which. */
  readonly currency: Currency
}

export interface CallbackTransaction {
  /** The aggregator whose transaction it is (none: a certification's, which no aggregator sent). */
  readonly aggregator?: Aggregator | undefined
  readonly txnId: string
  readonly roundId: string | null
  readonly gameCode: string | null
  readonly providerCode: string | null
}

/**
 * Event ids are derived from the transaction, so asking again after a crash
 * or a time-out carries the same id, and the partner's de-duplication makes
 * it harmless.
 */
export const transactionEventId = (
  kind: Exclude<CallbackKind, "balance">,
  txnId: string,
  aggregator?: Aggregator | undefined
) => `evt_${createHash("sha256").update(eventIdText(kind, txnId, aggregator)).digest("hex").slice(0, 32)}`

/**
 * What an event id is hashed from. Two aggregators may use one transaction id, and a partner takes an event id it has
 * seen for a repeat, so an aggregator's ids are hashed with its name: every aggregator's but the two whose ids
 * partners knew before aggregators had names (PlayFiver's and the sandbox's, `kind:txnId`). Those stay as they were:
 * changed, a rollback sent after an upgrade would name its bet by an id the partner never saw, and the stake would
 * stay taken. The two never share a ledger's environment unless an operator switches a live CASINO_GATEWAY between
 * them (docs/operators.md).
 */
const eventIdText = (kind: string, txnId: string, aggregator: Aggregator | undefined) =>
  aggregator === undefined || idsPredateNames.has(aggregator) ? `${kind}:${txnId}` : `${aggregator}:${kind}:${txnId}`

/** The aggregators whose event ids partners knew before aggregators had names in them. */
const idsPredateNames: ReadonlySet<string> = new Set(["playfiver", "sandbox"])

export const balanceEventId = () => `evt_${randomBytes(16).toString("hex")}`

const base = <K extends CallbackKind>(kind: K, eventId: string, party: CallbackParty, now: Date) => ({
  event_id: eventId,
  kind,
  created_at: now.toISOString(),
  partner: party.partnerSlug,
  player: { external_player_id: party.externalPlayerId, user_code: party.userCode },
  currency: party.currency.code
})

const transaction = (txn: CallbackTransaction) => ({
  transaction_id: txn.txnId,
  round_id: txn.roundId,
  game: { code: txn.gameCode, provider: txn.providerCode }
})

/**
 * A test callback (`kind: "test"`), sent on a partner's request to see its endpoint answer a signed callback: it
 * moves no money and asks for nothing but a 2xx; it is not recorded in the outbox.
 */
export const testBody = (partnerSlug: string, environment: Environment, now: Date) => {
  const eventId = balanceEventId()
  return {
    eventId,
    body: JSON.stringify(
      {
        event_id: eventId,
        kind: "test",
        created_at: now.toISOString(),
        partner: partnerSlug,
        environment,
        message: "A test callback: check its signature as you check every callback, and answer with any 2xx."
      } satisfies typeof TestCallback.Encoded
    )
  }
}

/** A JSON body, keys in a fixed order; kept byte for byte so every retry sends the same body. */
export const balanceBody = (party: CallbackParty, now: Date) => {
  const eventId = balanceEventId()
  return {
    eventId,
    body: JSON.stringify(base("balance", eventId, party, now) satisfies typeof BalanceCallback.Encoded)
  }
}

/** Take `amount` (the stake) from the player's balance, or refuse. */
export const betBody = (party: CallbackParty, txn: CallbackTransaction, amount: Minor, now: Date) =>
  JSON.stringify(
    {
      ...base("bet", transactionEventId("bet", txn.txnId, txn.aggregator), party, now),
      ...transaction(txn),
      amount: amountOnWire(amount, party.currency)
    } satisfies typeof BetCallback.Encoded
  )

/** The balance a notification states, when this service reckons one: a shadow player's (null) has none. */
const stated = (balance: Minor | null, currency: Currency) =>
  balance === null ? {} : { balance: amountOnWire(balance, currency) }

/**
 * Credit `amount`, the round's win; `balance` is the player's balance after it, as this service reckons it
 * (absent for a shadow player: the service keeps no balance of theirs, the partner's own books say it).
 */
export const winBody = (
  party: CallbackParty,
  txn: CallbackTransaction,
  amount: Minor,
  balance: Minor | null,
  now: Date
) =>
  JSON.stringify(
    {
      ...base("win", transactionEventId("win", txn.txnId, txn.aggregator), party, now),
      ...transaction(txn),
      amount: amountOnWire(amount, party.currency),
      ...stated(balance, party.currency)
    } satisfies typeof WinCallback.Encoded
  )

/**
 * The round `round_id` is refunded: apply `amount` (the stake back, less any
 * win the round paid; negative if the win was larger); `balance` as in a win.
 */
export const refundBody = (
  party: CallbackParty,
  txn: CallbackTransaction,
  round: { readonly bet: Minor; readonly win: Minor },
  amount: Minor,
  balance: Minor | null,
  now: Date
) =>
  JSON.stringify(
    {
      ...base("refund", transactionEventId("refund", txn.txnId, txn.aggregator), party, now),
      ...transaction(txn),
      amount: amountOnWire(amount, party.currency),
      bet: amountOnWire(round.bet, party.currency),
      win: amountOnWire(round.win, party.currency),
      ...stated(balance, party.currency)
    } satisfies typeof RefundCallback.Encoded
  )

/**
 * The bet `rolls_back` was not confirmed in time and was refused to the
 * aggregator: if it was applied, give `amount` back; if not, ignore this.
 */
export const rollbackBody = (party: CallbackParty, txn: CallbackTransaction, amount: Minor, now: Date) =>
  JSON.stringify(
    {
      ...base("rollback", transactionEventId("rollback", txn.txnId, txn.aggregator), party, now),
      ...transaction(txn),
      amount: amountOnWire(amount, party.currency),
      rolls_back: transactionEventId("bet", txn.txnId, txn.aggregator)
    } satisfies typeof RollbackCallback.Encoded
  )
