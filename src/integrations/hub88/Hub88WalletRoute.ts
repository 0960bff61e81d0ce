import { Duration, Effect, Option, Result } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { type Currency, knownCurrency } from "../../domain/Currency.ts"
import type { Environment } from "../../domain/Environment.ts"
import type { Minor } from "../../domain/Money.ts"
import type { PlayerIdentity } from "../../domain/Partner.ts"
import type { MoneyEvent } from "../../domain/WalletEvents.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { AuthFailureLimit } from "../../platform/AuthFailureLimit.ts"
import { ClientAddress } from "../../platform/ClientAddress.ts"
import { noCurrency, recordWalletDecision } from "../../platform/Metrics.ts"
import { maxBodyBytes, readBodyText } from "../../platform/RequestBody.ts"
import { CallbacksConfig } from "../../wallet/CallbacksConfig.ts"
import { UnreadableCallRepo } from "../../wallet/stuck/UnreadableCallRepo.ts"
import { Wallet } from "../../wallet/Wallet.ts"
import { WalletRepo } from "../../wallet/WalletRepo.ts"
import { Hub88Config } from "./Hub88Config.ts"
import { Hub88LaunchTokens } from "./Hub88LaunchTokens.ts"
import {
  amountInMinor,
  type BalanceRequest,
  type BetRequest,
  encodeWalletAnswer,
  readWalletRequest,
  type RollbackRequest,
  type Status,
  walletAnswer,
  type WalletCall,
  walletPaths,
  type WinRequest
} from "./Hub88Protocol.ts"
import { signatureHeaderKey, verifyBody } from "./Hub88Signature.ts"
import { creditOf, debitOf, rollbackOf, statusOf, userCodeOfUser } from "./Hub88WalletCalls.ts"

/** Where Hub88 posts its wallet calls: the URL registered with Hub88 is `{PUBLIC_URL}` followed by this. */
export const hub88WalletPrefix = "/aggregator/hub88"

/** Hub88's calls reach live players only: test tokens launch on the sandbox, never on Hub88. */
const environment: Environment = "live"

/** Whole seconds, rounded up. */
const seconds = (duration: Duration.Duration) => Math.max(1, Math.ceil(Duration.toMillis(duration) / 1000))

/** The metric name of a call answered before the ledger decided it (the ledger names the ones it decides). */
const metricNames = { info: "Balance", balance: "Balance", bet: "Debit", win: "Credit", rollback: "Rollback" } as const

/**
 * POST /aggregator/hub88/user/info, /user/balance, /transaction/bet, /transaction/win and /transaction/rollback:
 * Hub88's wallet calls (../shared/spec/hub88.md, section 4), relayed to the ledger (wallet/Wallet.ts) and through it
 * to the partner's wallet, exactly once. Every answer is HTTP 200 `{user, status, request_uuid, currency, balance}`,
 * except before the signature is looked at: an address outside AGGREGATOR_ALLOWED_IPS (when set) is a 403, one past
 * AUTH_FAILURE_LIMIT bad signatures a minute a 429 with Retry-After, a body over the size limit a 413.
 *
 * The signature (X-Hub88-Signature, RSA-SHA256 with Hub88's public key) is verified over the raw bytes before the
 * body is read; a bad one is RS_ERROR_INVALID_SIGNATURE and counts toward AUTH_FAILURE_LIMIT. Then, by call:
 * - info: the player's balance as the partner's wallet says it (no token travels on it);
 * - balance: the token must be valid (bound to the user, the game and the player's currency), then the balance;
 * - bet: a transaction id seen before goes straight to the ledger (the same content replays its answer, another is
 *   RS_ERROR_DUPLICATE_TRANSACTION; a changed currency too; an id a win or a rollback holds is one too, even sent
 *   at the same moment: the ledger's key holds Hub88's ids once across kinds); a new one needs a valid token (expired:
 *   RS_ERROR_TOKEN_EXPIRED), the player's currency (RS_ERROR_WRONG_CURRENCY), an amount that is a whole number of
 *   the currency's minor units, and then is a Debit;
 * - win: no token checked (wins come late and are retried); the currency and amount as a bet's; a Credit naming the
 *   bet it pays;
 * - rollback: no token checked; a Rollback naming the bet it undoes (one never seen: RS_OK, and that bet is then
 *   refused; one naming a win is the same, since Hub88 rolls back bets only: RS_OK, nothing moves, the win stays).
 * An amount finer than the currency moves nothing, is answered RS_ERROR_WRONG_TYPES and is kept for the operator as
 * an unreadable call (a stuck item until resent readable).
 */
export const Hub88WalletRoute = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const wallet = yield* Wallet
  const repo = yield* WalletRepo
  const players = yield* PartnerPlayers
  const unreadable = yield* UnreadableCallRepo
  const config = yield* Hub88Config
  const tokens = yield* Hub88LaunchTokens
  const clientAddress = yield* ClientAddress
  const failures = yield* AuthFailureLimit
  const allowed = (yield* CallbacksConfig).aggregatorAllowedIps

  /** An answer in the player's currency; a currency Hub88 cannot express answers 0 (HUB88_CURRENCIES refuses one). */
  const reply = (
    call: WalletCall,
    input: { readonly user: string; readonly requestUuid: string; readonly status: Status },
    currency: Currency | string,
    balance: Minor = 0n,
    httpStatus = 200,
    headers: Record<string, string> = {}
  ) => {
    const known = typeof currency === "string" ? knownCurrency(currency) : currency
    const answered = known === undefined ? Result.fail("unknown") : walletAnswer({ ...input, currency: known, balance })
    const answer = Result.getOrElse(answered, () => ({
      ...input,
      currency: typeof currency === "string" ? currency : currency.code,
      balance: 0n
    }))
    const logged = input.status === "RS_OK" ? Effect.void : Effect.logWarning("Hub88 wallet call refused").pipe(
      Effect.annotateLogs({ call, status: input.status, request_uuid: input.requestUuid, http_status: httpStatus })
    )
    return Effect.as(
      logged,
      HttpServerResponse.text(encodeWalletAnswer(answer), {
        status: httpStatus,
        headers,
        contentType: "application/json"
      })
    )
  }

  /** A call answered before the ledger decided it, counted as the ledger counts the ones it decides. */
  const early = (
    call: WalletCall,
    input: { readonly user: string; readonly requestUuid: string; readonly status: Status },
    currency: Currency | string,
    balance: Minor = 0n,
    httpStatus = 200,
    headers: Record<string, string> = {}
  ) =>
    Effect.andThen(
      recordWalletDecision(
        input.requestUuid === "" && input.status !== "RS_OK" ? "unread" : metricNames[call],
        input.status === "RS_OK" ? "" : input.status,
        typeof currency === "string" ? noCurrency : currency.code
      ),
      reply(call, input, currency, balance, httpStatus, headers)
    )

  /** The live player a call's `user` names, with its currency. */
  const playerOf = (user: string) =>
    Effect.gen(function*() {
      const userCode = userCodeOfUser(user)
      if (userCode === undefined) return Option.none()
      const identity = yield* players.identityByUserCode(userCode)
      return Option.filter(identity, (player) =>
        player.environment === environment && knownCurrency(player.currency) !== undefined)
    })

  /** The ledger's decision on an event, answered in the player's currency. */
  const decided = (
    call: "bet" | "win" | "rollback" | "balance",
    request: { readonly user: string; readonly requestUuid: string },
    currency: Currency,
    event: MoneyEvent | { readonly _tag: "Balance"; readonly userCode: number }
  ) =>
    Effect.flatMap(wallet.handle(event, environment), (outcome) => {
      const { balance, status } = statusOf(outcome, call)
      return reply(call === "balance" ? "balance" : call, { ...request, status }, currency, balance)
    })

  /**
   * The player's balance for an answer refused here, as the ledger answers its own refusals: the mirror the ledger
   * keeps (it already holds a win whose notification is still on its way), or a shadow player's asked of the partner.
   */
  const balanceOf = (player: PlayerIdentity) =>
    Effect.flatMap(players.findById(player.id), (found) =>
      Option.isSome(found) && found.value.balance !== null
        ? Effect.succeed(found.value.balance)
        : Effect.map(
          wallet.handle({ _tag: "Balance", userCode: player.internalUserId }, environment),
          (outcome) => outcome.balance
        ))

  const seen = (kind: "bet" | "credit" | "rollback", txnId: string) =>
    Effect.map(repo.findTransaction(environment, "hub88", kind, txnId), Option.isSome)

  /**
   * Hub88's transaction ids are one space for every kind: an id the ledger holds under another kind only (a win
   * reusing its bet's id) is a used id, refused here before its token or its bet are looked at (a win naming no bet
   * is not written, so the ledger alone would answer it RS_ERROR_TRANSACTION_DOES_NOT_EXIST). This look is not what
   * holds the rule: two calls at the same moment both pass it, and the ledger's key on Hub88's ids
   * (sql/0035_hub88_one_id_space.sql) takes the first written and answers the other as a used id.
   */
  const usage = (kind: "bet" | "credit" | "rollback", txnId: string) =>
    Effect.gen(function*() {
      // Any kind first, then its own: a row is never taken back, so a copy written between the two looks is seen
      // by the second as its own kind, never taken for another's.
      if ((yield* repo.existingTxnIds([{ environment, aggregator: "hub88", txnId }])).length === 0) {
        return "unused" as const
      }
      return (yield* seen(kind, txnId)) ? "own kind" as const : "another kind" as const
    })

  /** The answer refusing an id used by another kind, or how the id is used (a bet seen before skips its token). */
  const reused = (
    call: "bet" | "win" | "rollback",
    request: { readonly user: string; readonly requestUuid: string; readonly transactionUuid: string },
    player: PlayerIdentity,
    currency: Currency
  ) =>
    Effect.gen(function*() {
      const used = yield* usage(call === "win" ? "credit" : call, request.transactionUuid)
      if (used !== "another kind") return Result.succeed(used)
      const status = "RS_ERROR_DUPLICATE_TRANSACTION" as const
      return Result.fail(yield* early(call, { ...request, status }, currency, yield* balanceOf(player)))
    })

  /** A bet's or a win's amount in the player's currency, or the answer refusing it (a finer one kept as stuck). */
  const movement = (
    call: "bet" | "win",
    request: BetRequest | WinRequest,
    player: PlayerIdentity,
    currency: Currency
  ) =>
    Effect.gen(function*() {
      const amount = amountInMinor(request, currency)
      if (Result.isSuccess(amount)) return Result.succeed(amount.success)
      if (amount.failure === "RS_ERROR_WRONG_CURRENCY") {
        // A transaction id used before, now in another currency, is another transaction wearing it.
        const status = (yield* seen(call === "bet" ? "bet" : "credit", request.transactionUuid))
          ? "RS_ERROR_DUPLICATE_TRANSACTION" as const
          : "RS_ERROR_WRONG_CURRENCY" as const
        return Result.fail(yield* early(call, { ...request, status }, currency, yield* balanceOf(player)))
      }
      yield* unreadable.record({
        aggregator: "hub88",
        environment,
        partnerId: player.partnerId,
        playerId: player.id,
        txnId: request.transactionUuid,
        roundId: request.round,
        field: "amount",
        amount: request.amount.toString(),
        currency: currency.code
      })
      return Result.fail(yield* early(call, { ...request, status: "RS_ERROR_WRONG_TYPES" }, currency))
    })

  const tokenStatus = (token: string, user: string, gameCode: string | null | undefined, currency: Currency) =>
    gameCode === null || gameCode === undefined
      ? Effect.succeed("Invalid" as const)
      : tokens.check(token, { user, gameCode, currency: currency.code })

  const tokenRefusal = (token: "Expired" | "Invalid") =>
    token === "Expired" ? "RS_ERROR_TOKEN_EXPIRED" as const : "RS_ERROR_INVALID_TOKEN" as const

  const bet = (request: BetRequest, player: PlayerIdentity, currency: Currency) =>
    Effect.gen(function*() {
      const used = yield* reused("bet", request, player, currency)
      if (Result.isFailure(used)) return used.failure
      // A repeat is the ledger's to answer, however late: the same content replays, another is a duplicate.
      if (used.success === "unused") {
        const token = yield* tokenStatus(request.token, request.user, request.gameCode, currency)
        if (token !== "Valid") {
          return yield* early("bet", { ...request, status: tokenRefusal(token) }, currency, yield* balanceOf(player))
        }
      }
      const amount = yield* movement("bet", request, player, currency)
      if (Result.isFailure(amount)) return amount.failure
      return yield* decided("bet", request, currency, debitOf(player.internalUserId, request, amount.success))
    })

  const win = (request: WinRequest, player: PlayerIdentity, currency: Currency) =>
    Effect.gen(function*() {
      const used = yield* reused("win", request, player, currency)
      if (Result.isFailure(used)) return used.failure
      const amount = yield* movement("win", request, player, currency)
      if (Result.isFailure(amount)) return amount.failure
      return yield* decided("win", request, currency, creditOf(player.internalUserId, request, amount.success))
    })

  const rollback = (request: RollbackRequest, player: PlayerIdentity, currency: Currency) =>
    Effect.gen(function*() {
      const used = yield* reused("rollback", request, player, currency)
      if (Result.isFailure(used)) return used.failure
      return yield* decided("rollback", request, currency, rollbackOf(player.internalUserId, request))
    })

  const balance = (request: BalanceRequest, player: PlayerIdentity, currency: Currency) =>
    Effect.gen(function*() {
      const token = yield* tokenStatus(request.token, request.user, request.gameCode, currency)
      if (token !== "Valid") return yield* early("balance", { ...request, status: tokenRefusal(token) }, currency)
      return yield* decided("balance", request, currency, { _tag: "Balance", userCode: player.internalUserId })
    })

  const serve = (call: WalletCall) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const address = clientAddress.of(request)
      const nobody = { user: "", requestUuid: "" }
      const fallback = config.currencies[0]!.code
      // Refused before the body is looked at: no signature check, no parse, no wallet work.
      if (!allowed.isEmpty && !allowed.has(address)) {
        return yield* early(call, { ...nobody, status: "RS_ERROR_INVALID_SIGNATURE" }, fallback, 0n, 403)
      }
      const blocked = yield* failures.blocked("aggregator-wallet", address)
      if (Option.isSome(blocked)) {
        return yield* early(call, { ...nobody, status: "RS_ERROR_INVALID_SIGNATURE" }, fallback, 0n, 429, {
          "retry-after": String(seconds(blocked.value))
        })
      }
      if (Number(request.headers["content-length"] ?? 0) > maxBodyBytes) {
        return yield* early(call, { ...nobody, status: "RS_ERROR_WRONG_SYNTAX" }, fallback, 0n, 413)
      }
      const bytes = yield* Effect.result(request.arrayBuffer)
      if (Result.isFailure(bytes) || bytes.success.byteLength > maxBodyBytes) {
        return yield* early(call, { ...nobody, status: "RS_ERROR_WRONG_SYNTAX" }, fallback, 0n, 413)
      }
      // Over the exact bytes received, before anything of them is read.
      if (!verifyBody(new Uint8Array(bytes.success), request.headers[signatureHeaderKey], config.publicKey)) {
        const over = yield* failures.take("aggregator-wallet", address)
        return yield* early(
          call,
          { ...nobody, status: "RS_ERROR_INVALID_SIGNATURE" },
          fallback,
          0n,
          Option.isSome(over) ? 429 : 200,
          Option.match(over, {
            onNone: () => ({}),
            onSome: (retryAfter) => ({ "retry-after": String(seconds(retryAfter)) })
          })
        )
      }
      // Read strictly (the bytes stay cached): not UTF-8, or nested too deep, is no JSON Hub88 sends.
      const text = yield* Effect.result(readBodyText(request))
      const read = Result.isSuccess(text) ? readWalletRequest(call, text.success) : Result.fail({
        status: "RS_ERROR_WRONG_SYNTAX" as const,
        ...nobody
      })
      if (Result.isFailure(read)) {
        return yield* early(call, read.failure, fallback)
      }
      const called = read.success
      const found = yield* playerOf(called.request.user)
      const requestCurrency = "currency" in called.request ? called.request.currency : fallback
      if (Option.isNone(found)) {
        return yield* early(call, { ...called.request, status: "RS_ERROR_USER_DISABLED" }, requestCurrency)
      }
      const player = found.value
      const currency = knownCurrency(player.currency)!
      // A player in a currency the account does not serve was not launched at Hub88 (HUB88_CURRENCIES).
      if (!config.currencies.some((served) => served.code === currency.code)) {
        return yield* early(call, { ...called.request, status: "RS_ERROR_WRONG_CURRENCY" }, requestCurrency)
      }
      switch (called.call) {
        case "info":
          return yield* decided("balance", called.request, currency, {
            _tag: "Balance",
            userCode: player.internalUserId
          })
        case "balance":
          return yield* balance(called.request, player, currency)
        case "bet":
          return yield* bet(called.request, player, currency)
        case "win":
          return yield* win(called.request, player, currency)
        case "rollback":
          return yield* rollback(called.request, player, currency)
      }
    })

  for (const call of Object.keys(walletPaths) as ReadonlyArray<WalletCall>) {
    yield* router.add("POST", `${hub88WalletPrefix}${walletPaths[call]}`, serve(call))
  }
}))
