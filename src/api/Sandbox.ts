import { Effect, Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CurrencyCode, storedCurrency } from "../domain/Currency.ts"
import { amountOnWire } from "../domain/Money.ts"
import { StorableText } from "../domain/Text.ts"
import { Money } from "./Casino.ts"
import { Envelope } from "./Envelope.ts"
import { ErrorMessages, Forbidden, NotFound, ValidationFailed } from "./Errors.ts"
import { RequestValidation } from "./RequestValidation.ts"
import { exampleStatementData, StatementData } from "./Statements.ts"
import { Amount } from "./Wallet.ts"

/**
 * The sandbox a partner's scripts drive with the test token (issue 37): the sandbox casino's aggregator makes, on a
 * test round the partner names, the calls its game page's buttons make (a refund, a rollback, a late win), or a bet
 * the partner's wallet must refuse; and today's test statement closes so far. Each call goes through the ledger and
 * the partner's callbacks as an aggregator's would. A live token is refused (403): a live round is never touched.
 */

const RoundParam = StorableText.annotate({
  description: "The round's id, as the partner's callbacks carry it (`round_id`; the sandbox's are `sbx-…`)"
})

/** What a call did: the callback it made the partner receive shows in the partner's wallet and the ledger. */
const SandboxCallEntry = Schema.Struct({
  kind: Schema.Literals(["refund", "rollback", "late_win", "refused_bet"]).annotate({
    description: "refund: a `refund` callback (the round undone); rollback: a `rollback` callback (the bet's stake " +
      "back); late_win: a `win` callback; refused_bet: a `bet` callback your wallet should refuse"
  }),
  transaction_id: Schema.String.annotate({ description: "The call's own transaction id in the ledger" }),
  round_id: Schema.String,
  external_player_id: Schema.String,
  currency: Schema.String,
  status: Schema.Literals(["applied", "refused"]).annotate({ description: "The ledger's decision" }),
  refusal: Schema.NullOr(Schema.String).annotate({
    description:
      "The aggregator protocol's refusal code (INSUFFICIENT_USER_FUNDS, ROUND_REFUNDED, …); null when applied"
  }),
  reason: Schema.NullOr(Schema.String).annotate({
    description: "The refusal in words; when your wallet could not be called, the real cause (the URL policy, DNS, " +
      "a refused connection, a time-out, an answer that could not be read)"
  }),
  amount: Amount.annotate({ description: "The win or stake the call carried; 0 for a refund or a rollback" }),
  balance: Amount.annotate({ description: "The player's balance the ledger answered the aggregator" })
})

const SandboxCallData = Schema.Struct({ call: SandboxCallEntry })

const exampleCall: typeof SandboxCallData.Encoded = {
  call: {
    kind: "refund",
    transaction_id: "sbx-9QeD4m1xk0Zc2VYt2r7NfA",
    round_id: "sbx-3Vd0aWm2Tq8yXl1bK5sJpg",
    external_player_id: "player-42",
    currency: "BRL",
    status: "applied",
    refusal: null,
    reason: null,
    amount: 0,
    balance: 150.5
  }
}

const callResponse = (identifier: string) => Envelope(identifier, SandboxCallData, { example: exampleCall })

const testOnly = "Test token only; a live token is a 403."
const onRound = "404 when the round is not one of your test rounds of the sandbox casino."

export class SandboxGroup extends HttpApiGroup.make("sandbox")
  .add(
    HttpApiEndpoint.post("refund", "/sandbox/rounds/:round_id/refund", {
      params: { round_id: RoundParam },
      success: callResponse("SandboxRefundResponse"),
      error: [Forbidden, NotFound]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Refund a test round: the sandbox aggregator's Refund, a `refund` callback (test token only)",
      description:
        "The sandbox casino refunds the round whole, as PlayFiver's Refund does: its stakes back, its wins " +
        `taken back, sent to your wallet as a \`refund\` callback. A second refund moves nothing. ${onRound} ${testOnly}`
    }))
  )
  .add(
    HttpApiEndpoint.post("rollback", "/sandbox/rounds/:round_id/rollback", {
      params: { round_id: RoundParam },
      success: callResponse("SandboxRollbackResponse"),
      error: [Forbidden, NotFound]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Roll back a test round's bet: its stake back, a `rollback` callback (test token only)",
      description: "The ledger's rollback of the round's bet (as an aggregator that rolls back one bet sends it; " +
        "PlayFiver's protocol has only the refund of a round): exactly its stake back, once, sent to your wallet as " +
        "a `rollback` callback naming the bet; a win paid with it stays. A bet your wallet refused has nothing to " +
        `give back. ${onRound} ${testOnly}`
    }))
  )
  .add(
    HttpApiEndpoint.post("lateWin", "/sandbox/rounds/:round_id/late-win", {
      params: { round_id: RoundParam },
      payload: Schema.Struct({ amount: Money }),
      success: callResponse("SandboxLateWinResponse"),
      error: [Forbidden, NotFound, ValidationFailed]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "A late win on a test round: a `win` callback after its round (test token only)",
      description: "The sandbox aggregator's WinBet with no stake on the round, as a win that arrives after its " +
        "round: the ledger pays it on that round, and your wallet gets a `win` callback. A win on a refunded round " +
        `is refused (ROUND_REFUNDED). 422 on \`amount\` when it is 0 or finer than the player's currency. ${onRound} ` +
        testOnly
    }))
  )
  .add(
    HttpApiEndpoint.post("refusedBet", "/sandbox/refused-bet", {
      payload: Schema.Struct({
        external_player_id: StorableText,
        currency: Schema.optional(CurrencyCode)
      }),
      success: callResponse("SandboxRefusedBetResponse"),
      error: [Forbidden, ValidationFailed]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "A bet your wallet should refuse: a stake above the player's balance (test token only)",
      description: "The sandbox aggregator's WinBet with a stake one whole unit above the test player's balance (its " +
        "last known one): your wallet gets a `bet` callback and should answer insufficient funds; the ledger then " +
        "refuses it (INSUFFICIENT_USER_FUNDS) and nothing moves. `currency` picks the player's row when it plays in " +
        "several. When your wallet could not be called at all, `reason` says why. 422 on `external_player_id` for a " +
        `player never launched with the test token. ${testOnly}`
    }))
  )
  .add(
    HttpApiEndpoint.post("closeToday", "/sandbox/statements/today/close", {
      success: Envelope("SandboxStatementSoFarResponse", StatementData, {
        example: {
          ...exampleStatementData,
          statement: {
            ...exampleStatementData.statement,
            environment: "test",
            to: "2026-11-22T00:41:07.220Z",
            computed_at: "2026-11-22T00:41:07.220Z",
            partial: true,
            closed_up_to: "2026-11-22T00:41:07.220Z"
          }
        }
      }),
      error: [Forbidden, NotFound]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Close today's test statement so far (test token only)",
      description: "Writes the test environment's statement of the UTC day under way, up to now, and answers it " +
        "as GET /wallet/statements/{date} does (its first page): its summary says `partial: true` and " +
        "`closed_up_to` (also its `to`), and it is signed like every statement. Until the day ends, GET " +
        "/wallet/statements/{date} and its reconciliation read it; close it again for a later cut-off; after the " +
        "day ends, the day's own statement replaces it. 404 while a bet of today still waits for your wallet's " +
        `answer (close again in a few seconds). ${testOnly} A live statement is only ever written after its day.`
    }))
  )
  .annotateMerge(OpenApi.annotations({
    description: "The sandbox, driven by your scripts with the test token: the calls the sandbox game page's buttons " +
      "make, on your test rounds, and today's test statement so far."
  }))
{}

// The edge: who may drive the sandbox, and a call as the contract writes it.

const liveRefused = new Forbidden({
  message: "The sandbox is driven with your test token (pak_test_…): a live token never refunds, rolls back or pays " +
    "a round, nor closes a statement before its day ends."
})

/** `run` for a test token's partner; a live token's is refused (403), whatever it asks. */
export const asSandboxPartner = <A, E, R>(
  partner: { readonly environment: string },
  run: Effect.Effect<A, E, R>
): Effect.Effect<A, E | Forbidden, R> => partner.environment === "test" ? run : Effect.fail(liveRefused)

/** A call's outcome as the contract writes it. */
export const sandboxCallAnswer = (call: {
  readonly kind: typeof SandboxCallEntry.Type["kind"]
  readonly outcome: {
    readonly txnId: string
    readonly roundId: string
    readonly msg: string
    readonly balance: number | string
    readonly reason: string | null
  }
  readonly externalPlayerId: string
  readonly currency: string
  readonly amount: bigint
}) =>
  Effect.succeed({
    call: {
      kind: call.kind,
      transaction_id: call.outcome.txnId,
      round_id: call.outcome.roundId,
      external_player_id: call.externalPlayerId,
      currency: call.currency,
      status: call.outcome.msg === "" ? "applied" as const : "refused" as const,
      refusal: call.outcome.msg === "" ? null : call.outcome.msg,
      reason: call.outcome.reason,
      amount: amountOnWire(call.amount, storedCurrency(call.currency)),
      balance: call.outcome.balance
    }
  })

/** An unknown round, as the contract answers it: a 404. */
export const unknownRound = (unknown: { readonly message: string }) =>
  Effect.fail(new NotFound({ message: unknown.message }))

/** A field the call cannot be made with: a 422 naming it. */
export const callRefused = (refused: { readonly field: string; readonly message: string }) =>
  Effect.fail(
    new ValidationFailed({ message: ErrorMessages.invalidData, errors: { [refused.field]: [refused.message] } })
  )
