import { Schema } from "effect"
import {
  balanceBody,
  BalanceCallback,
  betBody,
  BetCallback,
  CallbackAnswer,
  callbackHeaders,
  type CallbackParty,
  type CallbackTransaction,
  refundBody,
  RefundCallback,
  rollbackBody,
  RollbackCallback,
  testBody,
  TestCallback,
  winBody,
  WinCallback
} from "../domain/Callbacks.ts"
import { certificationHeader } from "../domain/Certification.ts"
import { storedCurrency } from "../domain/Currency.ts"

/**
 * The callbacks this service sends to a partner's callback URL, as the OpenAPI documents' `webhooks` (3.1) and
 * `x-webhooks` (3.0.3, which has no webhooks): one per kind, its body's schema (the one its builder is checked against,
 * src/domain/Callbacks.ts), the signature's headers and the answers the service reads. Each example is the body the
 * builder writes, so the documents cannot show a field the service does not send.
 */

type Json = Record<string, any>

const party: CallbackParty = {
  partnerSlug: "acme",
  externalPlayerId: "player-42",
  userCode: 100001,
  currency: storedCurrency("BRL")
}

const txn: CallbackTransaction = {
  txnId: "txn-981",
  roundId: "round-981",
  gameCode: "ag-hidden-fortune",
  providerCode: "Aurora Gaming"
}

const at = new Date("2026-11-22T13:44:15.933Z")

/** The ids a balance and a test callback draw at random, fixed here so the documents stay the same from start to start. */
const withEventId = (body: string) => ({
  ...JSON.parse(body) as Json,
  event_id: "evt_6f1d2c3b4a5e6f708192a3b4c5d6e7f8"
})

/** One example body of each kind, as the service writes it (amounts of BRL: 2.00 is `2`). */
export const webhookExamples: Record<WebhookKind, Json> = {
  balance: withEventId(balanceBody(party, at).body),
  bet: JSON.parse(betBody(party, txn, 200n, at)),
  win: JSON.parse(winBody(party, txn, 500n, 10300n, at)),
  refund: JSON.parse(
    refundBody(party, { ...txn, txnId: "refund-17" }, { bet: 200n, win: 500n }, -300n, 10000n, at)
  ),
  rollback: JSON.parse(rollbackBody(party, { ...txn, txnId: "txn-982", roundId: "round-982" }, 200n, at)),
  test: withEventId(testBody(party.partnerSlug, "test", at).body)
}

export type WebhookKind = "balance" | "bet" | "win" | "refund" | "rollback" | "test"

/** Each kind's body schema: what the service decodes the examples with in its tests. */
export const webhookBodies = {
  balance: BalanceCallback,
  bet: BetCallback,
  win: WinCallback,
  refund: RefundCallback,
  rollback: RollbackCallback,
  test: TestCallback
} as const

const headerParameter = (name: string, description: string, example: string, required = true) => ({
  name,
  in: "header",
  required,
  description,
  schema: { type: "string" },
  example
})

const signatureParameters = [
  headerParameter(callbackHeaders.eventId, "The body's `event_id`.", "evt_0b4d5c3e2f1a09876543210fedcba987"),
  headerParameter(
    callbackHeaders.timestamp,
    "Unix seconds, when this attempt was signed: refuse one more than 5 minutes from your clock.",
    "1795355032"
  ),
  headerParameter(
    callbackHeaders.signature,
    "`v1=<hex>`: HMAC-SHA256 keyed with your webhook secret of the environment, over `<timestamp>.<raw body>`. " +
      "During a secret's rotation one per valid secret, newest first (`v1=<new>,v1=<old>`): accept if any matches.",
    "v1=8d2e5f0c1b3a49d7e6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1"
  ),
  headerParameter(
    certificationHeader,
    "Only on a wallet certification's calls: the run's id (the body's `certification.run`).",
    "cert_3f0c9a7d2e4f6a8b",
    false
  )
]

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** The answers to a callback that asks (`balance`, `bet`), as PartnerCallbacks reads them. */
const askedResponses = {
  "200": {
    description: "The player's balance after the event, in the body's currency with at most its decimals (keep " +
      "integer minor units: a float such as `88.75999999999999` is no usable answer). A refusal is " +
      "`{\"error\": \"insufficient_funds\", \"balance\": …}` or `{\"error\": \"unknown_player\"}`, with a 2xx or a " +
      "4xx. Anything else (a 5xx, no answer within PARTNER_CALLBACK_TIMEOUT, 3 s by default, another body, one " +
      "larger than 64 KiB) is your wallet unavailable: a bet is then refused to the player and a `rollback` follows.",
    content: {
      "application/json": {
        schema: ref("CallbackAnswer"),
        examples: {
          balance: { value: { balance: 101.5 } },
          insufficient_funds: { value: { error: "insufficient_funds", balance: 1.5 } },
          unknown_player: { value: { error: "unknown_player" } }
        }
      }
    }
  }
}

/** The answer to a notification: any 2xx delivers it; anything else has it sent again. */
const notifiedResponses = {
  "2XX": { description: "Delivered (the body is ignored)." },
  default: {
    description: "Not delivered: sent again later, with the same body and event id, freshly signed, in order " +
      "with the player's other notifications."
  }
}

const webhook = (kind: WebhookKind, summary: string, schema: string) => ({
  post: {
    operationId: `callback.${kind}`,
    summary,
    description: `${
      webhookBodies[kind].ast.annotations?.description ?? ""
    } Sent as a POST to your callback URL of the player's environment.`,
    tags: ["Callbacks"],
    parameters: signatureParameters,
    requestBody: {
      required: true,
      content: { "application/json": { schema: ref(schema), example: webhookExamples[kind] } }
    },
    responses: kind === "balance" || kind === "bet" ? askedResponses : notifiedResponses
  }
})

/** The schemas the webhooks refer to, as JSON Schema under the document's components. */
const webhookSchemas = (): Json => {
  const schemas: Json = {}
  for (const schema of [...Object.values(webhookBodies), CallbackAnswer]) {
    const document = Schema.toJsonSchemaDocument(schema)
    const text = JSON.stringify(document.definitions).replaceAll("#/$defs/", "#/components/schemas/")
    Object.assign(schemas, JSON.parse(text))
  }
  return schemas
}

/** Adds the callbacks to a generated OpenAPI 3.1 document as its `webhooks`, and their schemas to its components. */
export const documentWebhooks = (spec: Json): Json => {
  spec.components = { ...spec.components, schemas: { ...spec.components?.schemas, ...webhookSchemas() } }
  spec.webhooks = {
    balance: webhook("balance", "balance: answer the player's balance", "BalanceCallback"),
    bet: webhook("bet", "bet: take the stake, or refuse", "BetCallback"),
    win: webhook("win", "win: credit the win", "WinCallback"),
    refund: webhook("refund", "refund: the round is undone", "RefundCallback"),
    rollback: webhook("rollback", "rollback: give a refused bet's stake back", "RollbackCallback"),
    test: webhook("test", "test: a signed callback that moves nothing", "TestCallback")
  }
  spec.tags = [
    ...(spec.tags ?? []),
    {
      name: "Callbacks",
      description: "What this service sends to your callback URL, signed: the partner guide's callbacks page " +
        "(/docs/guide/callbacks) has every body, the signature with test vectors, and the answers."
    }
  ]
  return spec
}
