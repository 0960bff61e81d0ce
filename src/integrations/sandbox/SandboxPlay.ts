import { Effect, Option, Redacted, Schema } from "effect"
import {
  FetchHttpClient,
  HttpClient,
  HttpClientRequest,
  HttpRouter,
  HttpServer,
  HttpServerRequest,
  HttpServerResponse
} from "effect/http"
import { NetAddress } from "effect/net"
import { randomBytes, randomInt } from "node:crypto"
import { aggregatorWalletPath } from "../playfiver/AggregatorRoute.ts"
import { WalletAnswer } from "../playfiver/WalletProtocol.ts"
import { CallbackOutbox } from "../../wallet/outbox/CallbackOutbox.ts"
import { type Currency, storedCurrency } from "../../domain/Currency.ts"
import { amountOnWire, type Minor, minorOf } from "../../domain/Money.ts"
import { isStorableText } from "../../domain/Text.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { SandboxAgent, SandboxTestAgent } from "./SandboxAgent.ts"
import { SandboxConfig } from "./SandboxConfig.ts"
import { SandboxRepo, sessionEnvironment } from "./SandboxRepo.ts"

/** Stakes the sandbox game offers. */
export const sandboxStakes = [0.5, 1, 2, 5] as const

/** Three reels of six symbols: three sevens pay 25x, three of a kind 10x, a pair 1.5x (about 93% back). */
const spinReels = () => [randomInt(6), randomInt(6), randomInt(6)]
/** The win of a stake in minor units: a pair's 1.5x rounds down to the currency's minor unit (the game's rule). */
const payout = (reels: ReadonlyArray<number>, stake: Minor): Minor => {
  const [a, b, c] = reels
  if (a === b && b === c) return stake * (a === 0 ? 25n : 10n)
  return a === b || b === c || a === c ? stake * 3n / 2n : 0n
}

const SpinRequest = Schema.Struct({ bet: Schema.optional(Schema.Literals(sandboxStakes)) })

const decodeWalletAnswer = Schema.decodeUnknownEffect(WalletAnswer)

/** A refusal in words, for people on the game page; the code (the protocol's `msg`) is what the aggregator reads. */
const refusalReasons: Record<string, string> = {
  INSUFFICIENT_USER_FUNDS: "Insufficient funds: the balance does not cover this stake.",
  INVALID_USER: "The operator's wallet did not accept this player, or could not be reached.",
  ROUND_REFUNDED: "This round was already refunded.",
  DUPLICATE_TRANSACTION: "This transaction id was already used for a different bet.",
  ROUND_NOT_FOUND: "This round is unknown."
}

/** The session behind an id, while it is open; an id PostgreSQL could not store names none and is not sent to it. */
export const openSession = Effect.fn("SandboxPlay.openSession")(function*(id: string) {
  const repo = yield* SandboxRepo
  const { sessionTtl } = yield* SandboxConfig
  return isStorableText(id) ? yield* repo.findSession(id, sessionTtl) : Option.none()
})

/**
 * The sandbox aggregator at play: a spin on the game page becomes the same
 * wallet call a real aggregator makes (WinBet, over HTTP, to this service's
 * wallet endpoint, with the sandbox agent's credentials), so the whole loop
 * runs on the embedded default: the ledger, the partner's signed
 * callbacks, and the balance coming back. A test launch's session spins
 * with the test agent's credentials.
 */
export const SandboxPlay = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const repo = yield* SandboxRepo
  const config = yield* SandboxConfig
  const agents = { live: yield* SandboxAgent, test: yield* SandboxTestAgent }
  const players = yield* PartnerPlayers
  const outbox = yield* CallbackOutbox
  const server = yield* HttpServer.HttpServer
  const httpClient = (yield* HttpClient.HttpClient).pipe(HttpClient.filterStatusOk)
  const findSession = (id: string) =>
    openSession(id).pipe(Effect.provideService(SandboxRepo, repo), Effect.provideService(SandboxConfig, config))

  // The aggregator calls the operator URL; here that is this very server, on its loopback.
  const ownUrl = NetAddress.isInetAddress(server.address)
    ? server.address._tag === "InetAddressV6"
      ? `http://[::1]:${server.address.port}`
      : `http://127.0.0.1:${server.address.port}`
    : "http://127.0.0.1"

  const tooManySpins = HttpServerResponse.jsonUnsafe({
    message: `This game session has made its ${config.maxSpinsPerSession} spins: launch the game again for more.`
  }, { status: 429 })

  const stakeTooFine = (currency: Currency) =>
    HttpServerResponse.jsonUnsafe({ message: `That stake is finer than ${currency.code}'s smallest unit.` }, {
      status: 422
    })

  // An expired session is one that does not exist (it is removed at a later launch).
  const notFound = HttpServerResponse.jsonUnsafe({ message: "This game session does not exist." }, { status: 404 })

  yield* router.add(
    "POST",
    "/sandbox/casino/play/:session/spin",
    Effect.gen(function*() {
      const { session: id } = yield* HttpRouter.params
      const session = yield* findSession(id ?? "")
      if (Option.isNone(session)) return notFound
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = yield* Effect.orElseSucceed(request.json, () => ({}))
      const bet = Schema.decodeUnknownOption(SpinRequest)(body).pipe(
        Option.flatMap((spin) => Option.fromNullishOr(spin.bet))
      )
      const currency = storedCurrency(session.value.currency)
      const stake = minorOf(String(Option.getOrElse(bet, () => 1)), currency)
      if (stake === undefined) return stakeTooFine(currency)
      const spins = yield* repo.countSpin(session.value.id)
      if (spins > config.maxSpinsPerSession) return tooManySpins
      const reels = spinReels()
      const win = payout(reels, stake)
      // A value of its own, never the session's id: that is the game URL's secret, and transaction ids are seen by
      // the partner, its logs and whoever reads its statements.
      const txnId = `sbx-${randomBytes(16).toString("base64url")}`
      // A test launch's spins are the test agent's calls: the wallet tells the environment by them. Posted to the
      // sandbox's own path, where only its agents get in.
      const agent = agents[sessionEnvironment(session.value.id)]
      const answer = yield* httpClient.execute(
        HttpClientRequest.post(`${ownUrl}${aggregatorWalletPath("sandbox")}`).pipe(
          HttpClientRequest.bodyJsonUnsafe({
            type: "WinBet",
            user_code: session.value.user_code,
            agent_code: agent.agentCode,
            agent_secret: Redacted.value(agent.agentSecret),
            game_type: "slot",
            game_original: true,
            slot: {
              bet: amountOnWire(stake, currency),
              win: amountOnWire(win, currency),
              type: "BASE",
              txn_id: txnId,
              round_id: txnId,
              txn_type: "debit_credit",
              game_code: session.value.game_code,
              provider_code: session.value.provider,
              created_at: new Date().toISOString()
            }
          })
        )
      ).pipe(
        Effect.flatMap((response) => response.json),
        Effect.flatMap(decodeWalletAnswer),
        Effect.timeout("10 seconds"),
        Effect.orDie
      )
      const reason = answer.msg === ""
        ? null
        : refusalReasons[answer.msg] ?? `Refused by the operator's wallet (${answer.msg}).`
      return HttpServerResponse.jsonUnsafe({
        txn_id: txnId,
        reels,
        bet: amountOnWire(stake, currency),
        win: amountOnWire(answer.msg === "" ? win : 0n, currency),
        ...answer,
        reason
      })
    })
  )

  yield* router.add(
    "GET",
    "/sandbox/casino/play/:session/callbacks",
    Effect.gen(function*() {
      const { session: id } = yield* HttpRouter.params
      const session = yield* findSession(id ?? "")
      if (Option.isNone(session)) return notFound
      // What the partner was sent for this player, and (for the demo partner) what its wallet received.
      const player = yield* players.findByUserCode(session.value.user_code)
      const sent = Option.isNone(player) ? [] : yield* outbox.list({ playerId: player.value.id, limit: 6 })
      const received = new Map(
        Option.isNone(player) ? [] : (yield* repo.received(
          { partnerId: player.value.partnerId, environment: sessionEnvironment(session.value.id) },
          sent.map((callback) => callback.eventId)
        )).map((event) => [event.event_id, event])
      )
      return HttpServerResponse.jsonUnsafe({
        callbacks: sent.map((callback) => {
          const seen = received.get(callback.eventId)
          return {
            kind: callback.kind,
            event_id: callback.eventId,
            status: callback.status,
            attempts: callback.attempts,
            body: JSON.parse(callback.body) as unknown,
            received: seen === undefined ? null : { headers: seen.headers, answer: seen.answer }
          }
        })
      })
    })
  )
}, Effect.provide(FetchHttpClient.layer)))
