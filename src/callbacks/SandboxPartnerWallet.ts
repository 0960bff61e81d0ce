import { Clock, Effect, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { type Cents, centsFromNumeric, formatCents, toAmount } from "../domain/Money.ts"
import { isStorableText } from "../domain/Text.ts"
import { eventIdHeader, signatureHeader, timestampHeader, verify } from "./Signature.ts"

/** Where the demo partner's callbacks go on the embedded default. */
export const sandboxPartnerWalletPath = "/sandbox/partner/wallet"

const Callback = Schema.Struct({
  event_id: Schema.String,
  kind: Schema.Literals(["balance", "bet", "win", "refund", "rollback"]),
  partner: Schema.String,
  player: Schema.Struct({ external_player_id: Schema.String }),
  amount: Schema.optional(Schema.Finite),
  rolls_back: Schema.optional(Schema.String)
})
const decodeCallback = Schema.decodeUnknownOption(Schema.fromJsonString(Callback))

interface Reply {
  readonly status: number
  readonly body: unknown
}

/**
 * A partner's wallet, as the sandbox's demo partner runs it: what a partner
 * is asked to build (README, "For partners"), working. It checks the
 * signature with the partner's webhook secret, applies each event id once
 * (a repeat gets the first answer), keeps its players' balances (starting
 * from the balance the partner gave at launch), refuses a bet the balance
 * cannot cover, gives back a rolled-back bet only if it took it, and
 * remembers a rollback of a bet it never saw, to refuse that bet if it
 * arrives after all.
 * What it received is kept, so the sandbox game page can show it.
 */
export const SandboxPartnerWallet = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const sql = yield* SqlClient.SqlClient

  const apply = (partnerId: number, callback: typeof Callback.Type, headers: Record<string, string>, raw: string) =>
    sql.withTransaction(Effect.gen(function*() {
      const [seen] = yield* sql<{ answer: Reply }>`
        SELECT answer FROM sandbox_partner_events WHERE event_id = ${callback.event_id}
      `
      if (seen !== undefined) return seen.answer
      const player = callback.player.external_player_id
      yield* sql`
        INSERT INTO sandbox_partner_wallets (partner_id, external_player_id, balance)
        SELECT ${partnerId}, ${player}, coalesce(
          (SELECT balance FROM partner_players WHERE partner_id = ${partnerId} AND external_player_id = ${player}), 0)
        ON CONFLICT DO NOTHING
      `
      const [wallet] = yield* sql<{ balance: string }>`
        SELECT balance FROM sandbox_partner_wallets
        WHERE partner_id = ${partnerId} AND external_player_id = ${player} FOR UPDATE
      `
      const balance = centsFromNumeric(wallet.balance)
      // Our own callbacks: amounts are exact decimals (a refund's may be negative).
      const amount = centsFromNumeric(String(callback.amount ?? 0))
      const move = (to: Cents) =>
        sql`UPDATE sandbox_partner_wallets SET balance = ${formatCents(to)}, updated_at = now()
            WHERE partner_id = ${partnerId} AND external_player_id = ${player}`
      let reply: Reply
      switch (callback.kind) {
        case "balance":
          reply = { status: 200, body: { balance: toAmount(balance) } }
          break
        case "bet": {
          const [rolledBack] = yield* sql`SELECT 1 FROM sandbox_partner_events WHERE rolls_back = ${callback.event_id}`
          if (rolledBack !== undefined) {
            // The service gave up on this bet and rolled it back before it got here: it must not be applied.
            reply = { status: 409, body: { error: "rolled_back", balance: toAmount(balance) } }
          } else if (amount > balance) {
            reply = { status: 402, body: { error: "insufficient_funds", balance: toAmount(balance) } }
          } else {
            yield* move(balance - amount)
            reply = { status: 200, body: { balance: toAmount(balance - amount) } }
          }
          break
        }
        case "win":
        case "refund":
          yield* move(Math.max(0, balance + amount))
          reply = { status: 200, body: { ok: true } }
          break
        case "rollback": {
          const [bet] = yield* sql<{ applied: boolean }>`
            SELECT (answer->>'status')::int = 200 AS applied FROM sandbox_partner_events WHERE event_id = ${callback.rolls_back ?? ""}
          `
          // A bet not seen (yet) is remembered as rolled back by this very row: it is refused if it comes.
          if (bet?.applied) yield* move(balance + amount)
          reply = { status: 200, body: { ok: true, rolled_back: bet?.applied ?? false } }
          break
        }
      }
      yield* sql`
        INSERT INTO sandbox_partner_events (event_id, partner_id, headers, body, answer, rolls_back)
        VALUES (${callback.event_id}, ${partnerId}, ${JSON.stringify(headers)}::jsonb, ${raw}, ${JSON.stringify(reply)}::jsonb,
                ${callback.kind === "rollback" ? callback.rolls_back ?? null : null})
      `
      return reply
    }))

  yield* router.add(
    "POST",
    sandboxPartnerWalletPath,
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const raw = yield* request.text
      const callback = decodeCallback(raw)
      if (callback._tag === "None" || !isStorableText(callback.value.partner)) return HttpServerResponse.jsonUnsafe({ error: "not a callback" }, { status: 400 })
      const [partner] = yield* sql<{ id: string; webhook_secret: string }>`
        SELECT id::text, webhook_secret FROM partners WHERE slug = ${callback.value.partner}
      `
      const headers = {
        [eventIdHeader]: request.headers[eventIdHeader] ?? "",
        [timestampHeader]: request.headers[timestampHeader] ?? "",
        [signatureHeader]: request.headers[signatureHeader] ?? ""
      }
      const now = new Date(yield* Clock.currentTimeMillis)
      const signed = partner !== undefined &&
        verify(partner.webhook_secret, { timestamp: headers[timestampHeader], signature: headers[signatureHeader] }, raw, now)
      if (!signed) return HttpServerResponse.jsonUnsafe({ error: "invalid signature" }, { status: 401 })
      const reply = yield* apply(Number(partner.id), callback.value, headers, raw)
      return HttpServerResponse.jsonUnsafe(reply.body, { status: reply.status })
    }).pipe(Effect.orDie)
  )
}))
