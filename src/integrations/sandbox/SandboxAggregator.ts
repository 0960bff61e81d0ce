import { Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest, HttpServer } from "effect/http"
import { NetAddress } from "effect/net"
import { randomBytes } from "node:crypto"
import { transactionEventId } from "../../domain/Callbacks.ts"
import { type Currency, storedCurrency } from "../../domain/Currency.ts"
import type { Environment } from "../../domain/Environment.ts"
import { amountOnWire, type Minor } from "../../domain/Money.ts"
import { undeliveredCause } from "../../domain/UndeliveredCallback.ts"
import { CallbackTargets } from "../../partners/CallbackTargets.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { PartnersConfig } from "../../partners/PartnersConfig.ts"
import { CallbackOutbox } from "../../wallet/outbox/CallbackOutbox.ts"
import { Wallet } from "../../wallet/Wallet.ts"
import { aggregatorWalletPath } from "../playfiver/AggregatorRoute.ts"
import { answerOf, WalletAnswer } from "../playfiver/WalletProtocol.ts"
import { SandboxAgent, SandboxTestAgent } from "./SandboxAgent.ts"

/**
 * The sandbox aggregator's wallet calls, as a real aggregator makes them: PlayFiver's WinBet and Refund over HTTP to
 * this service's own wallet endpoint with the sandbox agent's credentials (a test session's with the test agent's),
 * so each reaches the real ledger and the partner's real callbacks. The game page's spin and buttons and the partner
 * API's test-token sandbox endpoints all call through here.
 *
 * PlayFiver's protocol speaks no rollback of one bet, only the refund of a round; the ledger does (Hub88's
 * `rollback`, domain/WalletEvents.ts `Rollback` with the debit it names). The sandbox's rollback is that event,
 * handed to the ledger as the Hub88 route hands it: the one call here that is not made over HTTP, since no protocol
 * the sandbox speaks on the wire has it.
 */

/** Whose call: the player the game session (or the round) is of. */
export interface SandboxPlayer {
  readonly userCode: number
  readonly environment: Environment
  readonly currency: string
  readonly gameCode: string
  readonly provider: string
}

/** A call's outcome: the protocol's answer, and why it was refused in words for people (null when accepted). */
export interface SandboxOutcome {
  readonly txnId: string
  readonly roundId: string
  readonly msg: string
  /** The player's balance after the call, as the protocol writes amounts. */
  readonly balance: number | string
  readonly reason: string | null
}

/** A refusal in words, for people; the code (the protocol's `msg`) is what the aggregator reads. */
const refusalReasons: Record<string, string> = {
  INSUFFICIENT_USER_FUNDS: "Insufficient funds: the balance does not cover this stake.",
  INVALID_USER: "The operator's wallet did not accept this player, or could not be reached.",
  ROUND_REFUNDED: "This round was already refunded.",
  DUPLICATE_TRANSACTION: "This transaction id was already used for a different bet.",
  ROUND_NOT_FOUND: "This round is unknown.",
  DEBIT_NOT_FOUND: "No bet of this round took a stake, so there is nothing to roll back.",
  DEBIT_ROLLED_BACK: "This bet was rolled back already."
}

const decodeWalletAnswer = Schema.decodeUnknownEffect(WalletAnswer)

/**
 * A transaction id of its own, never a session's id: that is the game URL's secret, and transaction ids are seen by
 * the partner, its logs and whoever reads its statements.
 */
export const sandboxTxnId = () => `sbx-${randomBytes(16).toString("base64url")}`

/** A stake the player's balance cannot cover: a whole unit above it (a shadow player's is unknown: far above any). */
export const stakeAboveBalance = (balance: Minor | null, currency: Currency): Minor => {
  const unit = 10n ** BigInt(currency.exponent)
  return (balance ?? unit * 1_000_000_000n) + unit
}

export class SandboxAggregator extends Context.Service<SandboxAggregator, {
  /** A stake and its win in one (WinBet) on a round of its own; a stake of 0 with a win is a free win on `roundId`. */
  winBet(
    player: SandboxPlayer,
    call: { readonly bet: Minor; readonly win: Minor; readonly roundId?: string | undefined }
  ): Effect.Effect<SandboxOutcome>
  /** PlayFiver's Refund: the whole round undone (its stakes back, its wins taken back). */
  refund(player: SandboxPlayer, roundId: string): Effect.Effect<SandboxOutcome>
  /** The ledger's rollback of the round's bet (its stake back, its win kept), as Hub88's route hands it over. */
  rollback(player: SandboxPlayer, roundId: string): Effect.Effect<SandboxOutcome>
}>()("partner-api/sandbox/SandboxAggregator") {
  static readonly layer = Layer.effect(
    SandboxAggregator,
    Effect.gen(function*() {
      const agents = { live: yield* SandboxAgent, test: yield* SandboxTestAgent }
      const players = yield* PartnerPlayers
      const targets = yield* CallbackTargets
      const outbox = yield* CallbackOutbox
      const wallet = yield* Wallet
      const { callbackAllowPrivate } = yield* PartnersConfig
      const server = yield* HttpServer.HttpServer
      const httpClient = (yield* HttpClient.HttpClient).pipe(HttpClient.filterStatusOk)

      // The aggregator calls the operator URL; here that is this very server, on its loopback.
      const ownUrl = NetAddress.isInetAddress(server.address)
        ? server.address._tag === "InetAddressV6"
          ? `http://[::1]:${server.address.port}`
          : `http://127.0.0.1:${server.address.port}`
        : "http://127.0.0.1"

      /**
       * Why a bet was refused, in words. A bet the partner's wallet gave no usable answer to is refused as
       * INSUFFICIENT_USER_FUNDS (and rolled back): the ledger kept the real cause on the bet's callback, and that is
       * what is said, not "Insufficient funds".
       */
      const reasonOf = Effect.fn("SandboxAggregator.reasonOf")(
        function*(player: SandboxPlayer, msg: string, txnId: string) {
          if (msg === "") return null
          const known = refusalReasons[msg] ?? `Refused by the operator's wallet (${msg}).`
          if (msg !== "INSUFFICIENT_USER_FUNDS") return known
          const found = yield* players.findByUserCode(player.userCode)
          if (Option.isNone(found)) return known
          const eventId = transactionEventId("bet", txnId, "sandbox")
          const sent = yield* outbox.list({ playerId: found.value.id, limit: 20 })
          const asked = sent.find((callback) => callback.eventId === eventId && callback.kind === "bet")
          if (asked === undefined || asked.lastError === null) return known
          const target = yield* targets.get(found.value.partnerId, found.value.environment)
          const url = Option.match(target, { onNone: () => null, onSome: (t) => t.callbackUrl })
          return undeliveredCause(url, asked.lastError, callbackAllowPrivate)
        }
      )

      const outcome = (player: SandboxPlayer, txnId: string, roundId: string) => (answer: WalletAnswer) =>
        Effect.map(reasonOf(player, answer.msg, txnId), (reason): SandboxOutcome => ({
          txnId,
          roundId,
          msg: answer.msg,
          balance: answer.balance,
          reason
        }))

      /** One call of the protocol, posted to the sandbox's own path, where only its agents get in. */
      const post = (player: SandboxPlayer, call: Record<string, unknown>) => {
        const agent = agents[player.environment]
        return httpClient.execute(
          HttpClientRequest.post(`${ownUrl}${aggregatorWalletPath("sandbox")}`).pipe(
            HttpClientRequest.bodyJsonUnsafe({
              ...call,
              user_code: player.userCode,
              agent_code: agent.agentCode,
              agent_secret: Redacted.value(agent.agentSecret)
            })
          )
        ).pipe(
          Effect.flatMap((response) => response.json),
          Effect.flatMap(decodeWalletAnswer),
          Effect.timeout("10 seconds"),
          Effect.orDie
        )
      }

      const currencyOf = (player: SandboxPlayer): Currency => storedCurrency(player.currency)

      return SandboxAggregator.of({
        winBet: (player, call) => {
          const txnId = sandboxTxnId()
          const roundId = call.roundId ?? txnId
          return Effect.flatMap(
            post(player, {
              type: "WinBet",
              game_type: "slot",
              game_original: true,
              slot: {
                bet: amountOnWire(call.bet, currencyOf(player)),
                win: amountOnWire(call.win, currencyOf(player)),
                type: "BASE",
                txn_id: txnId,
                round_id: roundId,
                txn_type: "debit_credit",
                game_code: player.gameCode,
                provider_code: player.provider,
                created_at: new Date().toISOString()
              }
            }),
            outcome(player, txnId, roundId)
          )
        },
        refund: (player, roundId) => {
          const txnId = sandboxTxnId()
          return Effect.flatMap(
            post(player, {
              type: "Refund",
              slot: { txn_id: txnId, round_id: roundId, game_code: player.gameCode, provider_code: player.provider }
            }),
            outcome(player, txnId, roundId)
          )
        },
        rollback: (player, roundId) => {
          const txnId = sandboxTxnId()
          // The sandbox's rounds are of one bet, whose transaction id is the round's.
          return wallet.handle({
            _tag: "Rollback",
            aggregator: "sandbox",
            userCode: player.userCode,
            txnId,
            roundId,
            debitTxnId: roundId,
            gameCode: player.gameCode,
            providerCode: player.provider
          }, player.environment).pipe(
            Effect.map((decided) => answerOf(decided, currencyOf(player))),
            Effect.flatMap(outcome(player, txnId, roundId))
          )
        }
      })
    })
  ).pipe(Layer.provide(FetchHttpClient.layer))
}
