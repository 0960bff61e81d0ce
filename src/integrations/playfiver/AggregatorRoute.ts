import { Duration, Effect, Option, Result, Schema, SchemaIssue } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { type Aggregator, isAggregator } from "../../domain/Aggregator.ts"
import * as ExactJson from "../../domain/ExactJson.ts"
import { AuthFailureLimit } from "../../platform/AuthFailureLimit.ts"
import { ClientAddress } from "../../platform/ClientAddress.ts"
import { CurrencyConfig } from "../../platform/CurrencyConfig.ts"
import { storedCurrency } from "../../domain/Currency.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { noCurrency, recordWalletDecision } from "../../platform/Metrics.ts"
import { readBodyText } from "../../platform/RequestBody.ts"
import { CallbacksConfig } from "../../wallet/CallbacksConfig.ts"
import { UnreadableCallRepo } from "../../wallet/stuck/UnreadableCallRepo.ts"
import { Wallet } from "../../wallet/Wallet.ts"
import { WalletCredentials } from "./WalletCredentials.ts"
import { answerOf, CallEnvelope, readWalletCall, userCodeOf } from "./WalletProtocol.ts"

/**
 * Where an aggregator speaking this protocol posts its wallet calls (its "operator URL"), outside the partner API:
 * `/aggregator/{aggregator}/wallet` (PlayFiver's at /aggregator/playfiver/wallet), the aggregator named by the path.
 */
export const aggregatorWalletPath = (aggregator: Aggregator) => `/aggregator/${aggregator}/wallet`

/**
 * The path PlayFiver-style agents were given before aggregators had paths of their own, kept as it was: the agent's
 * credentials say which aggregator calls (the live agent CASINO_GATEWAY's, the test agent the sandbox).
 */
export const walletPath = "/aggregator/wallet"

const decodeEnvelope = Schema.decodeUnknownResult(CallEnvelope)
const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

const answer = (status: number, body: unknown) => HttpServerResponse.jsonUnsafe(body, { status })

const parse = (text: string): Result.Result<unknown, string> => {
  try {
    return Result.succeed(ExactJson.parse(text))
  } catch {
    return Result.fail("the body is not JSON")
  }
}

/** Whole seconds, rounded up. */
const seconds = (duration: Duration.Duration) => Math.max(1, Math.ceil(Duration.toMillis(duration) / 1000))

/**
 * POST /aggregator/{aggregator}/wallet and POST /aggregator/wallet. Only calls carrying the configured agent code
 * and secret get in (on an aggregator's own path, only its own agents: another's is a wrong agent) (compared in constant time); anything else is refused
 * and logged without the secret. Protocol answers are 200 with `msg`;
 * a call that cannot be read is a 400, a stranger a 401.
 *
 * Before its body is read, a call must come from AGGREGATOR_ALLOWED_IPS
 * (when set; else a 403 INVALID_AGENT), from an address this instance has
 * not seen go past AUTH_FAILURE_LIMIT wrong agents a minute (else a 429
 * TOO_MANY_REQUESTS with Retry-After). Each INVALID_AGENT counts toward
 * that limit, in the shared RateLimiter; the one past it is the 429. An
 * address past it is refused whatever it sends, right credentials too,
 * so a guess past the limit is never confirmed.
 */
export const AggregatorRoute = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const wallet = yield* Wallet
  const players = yield* PartnerPlayers
  const unreadable = yield* UnreadableCallRepo
  const { defaultCurrency } = yield* CurrencyConfig
  const credentials = yield* WalletCredentials
  const clientAddress = yield* ClientAddress
  const failures = yield* AuthFailureLimit
  const allowed = (yield* CallbacksConfig).aggregatorAllowedIps

  const refuse = (status: number, msg: string, reason: string, address: string, headers: Record<string, string> = {}) =>
    Effect.as(
      Effect.logWarning("Wallet call refused").pipe(
        Effect.annotateLogs({ reason, status, remote_address: address }),
        Effect.andThen(recordWalletDecision("unread", msg, noCurrency))
      ),
      HttpServerResponse.jsonUnsafe({ msg, balance: 0 }, { status, headers })
    )

  const tooMany = (retryAfter: Duration.Duration, address: string) =>
    refuse(429, "TOO_MANY_REQUESTS", `more wrong agents than AUTH_FAILURE_LIMIT from this address`, address, {
      "retry-after": String(seconds(retryAfter))
    })

  /** A wallet call, of the aggregator the path names (none: the one the agent's credentials say). */
  const serve = (named: Option.Option<Aggregator>) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const address = clientAddress.of(request)
      // Refused before the body is read: no parse, no wallet work.
      if (!allowed.isEmpty && !allowed.has(address)) {
        return yield* refuse(403, "INVALID_AGENT", "address outside AGGREGATOR_ALLOWED_IPS", address)
      }
      const blocked = yield* failures.blocked("aggregator-wallet", address)
      if (Option.isSome(blocked)) return yield* tooMany(blocked.value, address)
      // Read strictly: bytes that are not UTF-8 would otherwise become U+FFFD, merging two ids into one.
      const text = yield* Effect.result(readBodyText(request))
      const body = Result.isSuccess(text) ? parse(text.success) : Result.fail(text.failure.message)
      if (Result.isFailure(body)) return yield* refuse(400, "INVALID_REQUEST", body.failure, address)
      const envelope = decodeEnvelope(body.success)
      if (
        Result.isFailure(envelope) || body.success === null || typeof body.success !== "object" ||
        Array.isArray(body.success)
      ) {
        return yield* refuse(400, "INVALID_REQUEST", "the body is not a JSON object", address)
      }
      // The agent says the environment (a test session's calls reach test players only) and the aggregator; on an
      // aggregator's own path, another aggregator's agent is as wrong as a stranger.
      const agent = Option.filter(
        credentials.agentOf(envelope.success.agent_code, envelope.success.agent_secret),
        (agent) => Option.isNone(named) || agent.aggregator === named.value
      )
      if (Option.isNone(agent)) {
        const over = yield* failures.take("aggregator-wallet", address)
        return yield* Option.match(over, {
          onNone: () => refuse(401, "INVALID_AGENT", "unknown agent code or wrong agent secret", address),
          onSome: (retryAfter) => tooMany(retryAfter, address)
        })
      }
      // Amounts are in the player's currency (its row's: one per currency); a stranger's call reads in the default,
      // and the ledger refuses it anyway.
      const userCode = userCodeOf(body.success)
      const player = userCode === undefined ? Option.none() : yield* players.identityByUserCode(userCode)
      const currency = Option.match(player, {
        onNone: () => defaultCurrency,
        onSome: (player) => storedCurrency(player.currency)
      })
      const call = readWalletCall(body.success, agent.value.aggregator, currency)
      if (Result.isFailure(call)) {
        const failure = call.failure
        if (typeof failure !== "string" && "_tag" in failure && failure._tag === "FinerAmount") {
          // A known player's call (of the agent's environment) is kept for the operator: a stuck item until resent.
          const known = Option.filter(player, (player) => player.environment === agent.value.environment)
          if (Option.isSome(known)) {
            yield* unreadable.record({
              aggregator: agent.value.aggregator,
              environment: known.value.environment,
              partnerId: known.value.partnerId,
              playerId: known.value.id,
              txnId: failure.txnId,
              roundId: failure.roundId,
              field: failure.field,
              amount: failure.amount,
              currency: currency.code
            })
          }
          return yield* refuse(400, "INVALID_REQUEST", failure.message, address)
        }
        const problem = typeof failure === "string"
          ? failure
          : `not a Balance, WinBet or Refund call (${
            formatIssue(failure.issue).issues
              .map(({ message, path }) => `${(path ?? []).join(".") || "body"}: ${message}`)
              .join("; ")
          })`
        return yield* refuse(400, "INVALID_REQUEST", problem, address)
      }
      return answer(200, answerOf(yield* wallet.handle(call.success, agent.value.environment), currency))
    })

  yield* router.add("POST", walletPath, serve(Option.none()))
  yield* router.add(
    "POST",
    "/aggregator/:aggregator/wallet",
    Effect.flatMap(HttpRouter.params, ({ aggregator }) =>
      isAggregator(aggregator)
        ? serve(Option.some(aggregator))
        : Effect.flatMap(
          HttpServerRequest.HttpServerRequest,
          (request) => refuse(404, "INVALID_REQUEST", "no aggregator of that name", clientAddress.of(request))
        ))
  )
}))
