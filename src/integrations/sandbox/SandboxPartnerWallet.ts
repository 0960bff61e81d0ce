import { Clock, Effect, Option, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { eventIdHeader, signatureHeader, timestampHeader, verify } from "../../wallet/outbox/Signature.ts"
import { type Currency, knownCurrency } from "../../domain/Currency.ts"
import { amountOnWire, type Minor, signedMinorOf } from "../../domain/Money.ts"
import type { Environment } from "../../domain/Environment.ts"
import { isStorableText } from "../../domain/Text.ts"
import { CallbackTargets } from "../../partners/CallbackTargets.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { Partners } from "../../partners/Partners.ts"
import { sandboxPartnerWalletPath } from "./SandboxConfig.ts"
import { SandboxRepo, type WalletKey, type WalletReply } from "./SandboxRepo.ts"

export { sandboxPartnerWalletPath }

/** A callback URL that is the sandbox partner wallet (of this service, at whatever address it had). */
export const isSandboxPartnerWallet = (url: string | null) =>
  url !== null && URL.parse(url)?.pathname === sandboxPartnerWalletPath

const Callback = Schema.Struct({
  event_id: Schema.String,
  kind: Schema.Literals(["balance", "bet", "win", "refund", "rollback"]),
  partner: Schema.String,
  player: Schema.Struct({ external_player_id: Schema.String }),
  currency: Schema.String,
  amount: Schema.optional(Schema.Union([Schema.Finite, Schema.String])),
  rolls_back: Schema.optional(Schema.String)
})
type Callback = typeof Callback.Type
const decodeCallback = Schema.decodeUnknownOption(Schema.fromJsonString(Callback))

/** A callback for a player the wallet does not know. */
const unknownPlayer: WalletReply = { status: 404, body: { error: "unknown_player" } }

/**
 * What the wallet answers a callback, given the player's balance: the
 * partner's rules, as the partner guide (docs/partner-guide/callbacks.md) asks a partner to keep them.
 * `rolledBack`: a rollback of this bet came first. `betApplied`: for a
 * rollback, whether the bet it rolls back was taken.
 */
export const decide = (
  callback: Pick<Callback, "kind">,
  amount: Minor,
  balance: Minor,
  facts: { readonly rolledBack: boolean; readonly betApplied: boolean },
  currency: Currency
): { readonly reply: WalletReply; readonly balance: Minor } => {
  const toAmount = (minor: Minor) => amountOnWire(minor, currency)
  switch (callback.kind) {
    case "balance":
      return { reply: { status: 200, body: { balance: toAmount(balance) } }, balance }
    case "bet":
      // The service gave up on this bet and rolled it back before it got here: it must not be applied.
      if (facts.rolledBack) {
        return { reply: { status: 409, body: { error: "rolled_back", balance: toAmount(balance) } }, balance }
      }
      if (amount > balance) {
        return { reply: { status: 402, body: { error: "insufficient_funds", balance: toAmount(balance) } }, balance }
      }
      return { reply: { status: 200, body: { balance: toAmount(balance - amount) } }, balance: balance - amount }
    case "win":
    case "refund":
      return { reply: { status: 200, body: { ok: true } }, balance: balance + amount < 0n ? 0n : balance + amount }
    case "rollback":
      // A bet not seen (yet) is remembered as rolled back by this very event: it is refused if it comes.
      return {
        reply: { status: 200, body: { ok: true, rolled_back: facts.betApplied } },
        balance: facts.betApplied ? balance + amount : balance
      }
  }
}

/**
 * A partner's wallet, as the sandbox's demo partner runs it: what a partner
 * is asked to build (docs/partner-guide/callbacks.md), working. It checks the
 * signature with the partner's webhook secret, applies each event id once
 * (a repeat gets the first answer), keeps its players' balances (starting
 * from the balance the partner gave at launch), refuses a bet the balance
 * cannot cover, gives back a rolled-back bet only if it took it, and
 * remembers a rollback of a bet it never saw, to refuse that bet if it
 * arrives after all. A player the partner never launched, with no wallet
 * here, is unknown to it (`{"error": "unknown_player"}`). It passes every case of the wallet
 * certification.
 * What it received is kept, so the sandbox game page can show it.
 */
export const SandboxPartnerWallet = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const repo = yield* SandboxRepo
  const partners = yield* Partners
  const targets = yield* CallbackTargets
  const players = yield* PartnerPlayers

  const apply = Effect.fn("SandboxPartnerWallet.apply")(
    function*(
      partnerId: number,
      environment: Environment,
      callback: Callback,
      headers: Record<string, string>,
      raw: string
    ) {
      const key = { partnerId, environment, eventId: callback.event_id }
      const seen = yield* repo.replyTo(key)
      if (Option.isSome(seen)) return seen.value
      // Each currency of a player is a wallet of its own; a currency it does not know is no player of it.
      const currency = knownCurrency(callback.currency)
      if (currency === undefined) return unknownPlayer
      const wallet: WalletKey = {
        partnerId,
        externalPlayerId: callback.player.external_player_id,
        currency: currency.code
      }
      // A player the partner never launched and with no wallet here is not one of its players: nothing is opened for it.
      const player = yield* players.find(partnerId, environment, wallet.externalPlayerId, currency.code)
      if (Option.isNone(player) && !(yield* repo.hasWallet(wallet))) return unknownPlayer
      // A wallet opens at the balance the partner last confirmed for the player.
      yield* repo.openWallet(wallet, Option.match(player, { onNone: () => 0n, onSome: (p) => p.balance ?? 0n }))
      const balance = yield* repo.lockWallet(wallet)
      // Copies of one event arriving at once wait on the wallet's lock: the ones after the first get its answer.
      const answered = yield* repo.replyTo(key)
      if (Option.isSome(answered)) return answered.value
      // Our own callbacks: amounts are exact decimals (a refund's may be negative).
      const amount = signedMinorOf(String(callback.amount ?? 0), currency) ?? 0n
      const facts = {
        rolledBack: callback.kind === "bet" && (yield* repo.isRolledBack(key)),
        betApplied: callback.kind === "rollback" &&
          Option.exists(
            yield* repo.replyTo({ ...key, eventId: callback.rolls_back ?? "" }),
            (reply) => reply.status === 200
          )
      }
      const decided = decide(callback, amount, balance, facts, currency)
      if (decided.balance !== balance) yield* repo.moveWallet(wallet, decided.balance)
      yield* repo.recordEvent({
        eventId: callback.event_id,
        partnerId,
        environment,
        headers,
        body: raw,
        reply: decided.reply,
        rollsBack: callback.kind === "rollback" ? callback.rolls_back ?? null : null
      })
      return decided.reply
    },
    repo.transaction
  )

  yield* router.add(
    "POST",
    sandboxPartnerWalletPath,
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const raw = yield* request.text
      const callback = decodeCallback(raw)
      if (callback._tag === "None" || !isStorableText(callback.value.partner)) {
        return HttpServerResponse.jsonUnsafe({ error: "not a callback" }, { status: 400 })
      }
      const partner = yield* Effect.option(partners.show(callback.value.partner))
      // Test environments without a callback URL send here with `?environment=test` (see CallbackTargets).
      const environment: Environment = new URL(request.url, "http://sandbox").searchParams.get("environment") === "test"
        ? "test"
        : "live"
      const target = Option.isNone(partner) ? Option.none() : yield* targets.get(partner.value.id, environment)
      const headers = {
        [eventIdHeader]: request.headers[eventIdHeader] ?? "",
        [timestampHeader]: request.headers[timestampHeader] ?? "",
        [signatureHeader]: request.headers[signatureHeader] ?? ""
      }
      const now = new Date(yield* Clock.currentTimeMillis)
      if (
        Option.isNone(target) ||
        !verify(
          target.value.webhookSecret,
          { timestamp: headers[timestampHeader], signature: headers[signatureHeader] },
          raw,
          now
        )
      ) return HttpServerResponse.jsonUnsafe({ error: "invalid signature" }, { status: 401 })
      const reply = yield* apply(target.value.partnerId, environment, callback.value, headers, raw)
      return HttpServerResponse.jsonUnsafe(reply.body, { status: reply.status })
    }).pipe(Effect.orDie)
  )
}))
