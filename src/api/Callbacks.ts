import { Schema, SchemaGetter } from "effect"
import { CallbackView, TestCallbackView } from "../domain/Callbacks.ts"
import { IsoDate } from "./Wallet.ts"

/*
 * A callback in detail, as the console's wallet pages, the portal's delivery log and the admin CLI show it: one
 * schema, so an operator and the partner read the same fields.
 */

/** A callback's body as the operator reads it: its JSON, or the text itself when it is not JSON. */
const CallbackBody = Schema.Unknown.pipe(Schema.decodeTo(Schema.String, {
  decode: SchemaGetter.transform((body: unknown) => typeof body === "string" ? body : JSON.stringify(body)),
  encode: SchemaGetter.transform((body: string): unknown => {
    try {
      return JSON.parse(body)
    } catch {
      return body
    }
  })
}))

/** A callback as the operator sees it (domain CallbackView): with its id (to redeliver), partner, player and body. */
export const CallbackDetail = Schema.Struct({
  id: CallbackView.fields.id,
  eventId: CallbackView.fields.eventId,
  partner: CallbackView.fields.partner,
  externalPlayerId: CallbackView.fields.externalPlayerId,
  kind: CallbackView.fields.kind,
  txnId: CallbackView.fields.txnId,
  status: CallbackView.fields.status,
  attempts: CallbackView.fields.attempts,
  lastError: CallbackView.fields.lastError,
  createdAt: IsoDate,
  deliveredAt: Schema.NullOr(IsoDate),
  nextAttemptAt: Schema.NullOr(IsoDate),
  body: CallbackBody,
  /** Whether it can be sent again: a notification can; a bet, answered during the aggregator's call, never. */
  redeliverable: CallbackView.fields.redeliverable
}).pipe(Schema.encodeKeys({
  eventId: "event_id",
  externalPlayerId: "player",
  txnId: "transaction_id",
  lastError: "last_error",
  createdAt: "created_at",
  deliveredAt: "delivered_at",
  nextAttemptAt: "next_attempt_at"
}))

/**
 * A test callback as the portal's delivery log shows it (domain TestCallbackView), in CallbackDetail's shape so the
 * log reads as one list: no id (it cannot be redelivered), player, transaction or next attempt; its event id and body
 * null when its send was recorded before they were kept.
 */
export const TestCallbackDetail = Schema.Struct({
  id: Schema.Null,
  eventId: TestCallbackView.fields.eventId,
  partner: TestCallbackView.fields.partner,
  externalPlayerId: Schema.Null,
  kind: TestCallbackView.fields.kind,
  txnId: Schema.Null,
  status: TestCallbackView.fields.status,
  attempts: TestCallbackView.fields.attempts,
  lastError: TestCallbackView.fields.lastError,
  createdAt: IsoDate,
  deliveredAt: Schema.NullOr(IsoDate),
  nextAttemptAt: Schema.Null,
  body: Schema.NullOr(CallbackBody),
  redeliverable: Schema.Literal(false)
}).pipe(Schema.encodeKeys({
  eventId: "event_id",
  externalPlayerId: "player",
  txnId: "transaction_id",
  lastError: "last_error",
  createdAt: "created_at",
  deliveredAt: "delivered_at",
  nextAttemptAt: "next_attempt_at"
}))

/** A test callback's view in the delivery log's shape. */
export const testCallbackDetail = (view: TestCallbackView): typeof TestCallbackDetail.Type => ({
  id: null,
  eventId: view.eventId,
  partner: view.partner,
  externalPlayerId: null,
  kind: view.kind,
  txnId: null,
  status: view.status,
  attempts: view.attempts,
  lastError: view.lastError,
  createdAt: view.createdAt,
  deliveredAt: view.deliveredAt,
  nextAttemptAt: null,
  body: view.body,
  redeliverable: false
})
