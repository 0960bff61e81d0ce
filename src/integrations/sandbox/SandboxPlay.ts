import { Effect, Option, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomInt } from "node:crypto"
import { CallbackOutbox } from "../../wallet/outbox/CallbackOutbox.ts"
import { type Currency, storedCurrency } from "../../domain/Currency.ts"
import { amountOnWire, type Minor, minorOf } from "../../domain/Money.ts"
import { isStorableText } from "../../domain/Text.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { SandboxAggregator, type SandboxOutcome, type SandboxPlayer, stakeAboveBalance } from "./SandboxAggregator.ts"
import { SandboxConfig } from "./SandboxConfig.ts"
import { type GameSession, SandboxRepo, sessionEnvironment } from "./SandboxRepo.ts"

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
/** What a button names: the round it acts on (the page's last spin), and a late win's amount (one of the stakes). */
const RoundRequest = Schema.Struct({
  round_id: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200)),
  win: Schema.optional(Schema.Literals(sandboxStakes))
})

/** The session behind an id, while it is open; an id PostgreSQL could not store names none and is not sent to it. */
export const openSession = Effect.fn("SandboxPlay.openSession")(function*(id: string) {
  const repo = yield* SandboxRepo
  const { sessionTtl } = yield* SandboxConfig
  return isStorableText(id) ? yield* repo.findSession(id, sessionTtl) : Option.none()
})

/**
 * The sandbox aggregator at play: a spin on the game page becomes the same
 * wallet call a real aggregator makes (WinBet, over HTTP, to this service's
 * wallet endpoint, with the sandbox agent's credentials: SandboxAggregator),
 * so the whole loop runs on the embedded default: the ledger, the partner's
 * signed callbacks, and the balance coming back. A test launch's session
 * spins with the test agent's credentials. Beside Spin, the page's buttons
 * make the other calls a partner's wallet must handle: a refund of the last
 * round, a rollback of its bet, a late win on it, and a bet above the
 * balance (docs/partners.md, "Sandbox").
 */
export const SandboxPlay = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const repo = yield* SandboxRepo
  const config = yield* SandboxConfig
  const aggregator = yield* SandboxAggregator
  const players = yield* PartnerPlayers
  const outbox = yield* CallbackOutbox
  const findSession = (id: string) =>
    openSession(id).pipe(Effect.provideService(SandboxRepo, repo), Effect.provideService(SandboxConfig, config))

  const tooManySpins = HttpServerResponse.jsonUnsafe({
    message: `This game session has made its ${config.maxSpinsPerSession} spins: launch the game again for more.`
  }, { status: 429 })

  const stakeTooFine = (currency: Currency) =>
    HttpServerResponse.jsonUnsafe({ message: `That stake is finer than ${currency.code}'s smallest unit.` }, {
      status: 422
    })

  // An expired session is one that does not exist (it is removed at a later launch).
  const notFound = HttpServerResponse.jsonUnsafe({ message: "This game session does not exist." }, { status: 404 })
  const noRound = HttpServerResponse.jsonUnsafe({ message: "Spin first: the buttons act on the last round." }, {
    status: 422
  })

  const playerOf = (session: GameSession): SandboxPlayer => ({
    userCode: session.user_code,
    environment: sessionEnvironment(session.id),
    currency: session.currency,
    gameCode: session.game_code,
    provider: session.provider
  })

  /** The answer the page reads: the protocol's, its reason in words, and what was staked and won. */
  const answered = (outcome: SandboxOutcome, currency: Currency, amounts: { bet: Minor; win: Minor }) =>
    HttpServerResponse.jsonUnsafe({
      txn_id: outcome.txnId,
      round_id: outcome.roundId,
      bet: amountOnWire(amounts.bet, currency),
      win: amountOnWire(outcome.msg === "" ? amounts.win : 0n, currency),
      msg: outcome.msg,
      balance: outcome.balance,
      reason: outcome.reason
    })

  /** A call of the session's, counted with its spins (the page needs no auth: its URL is all it takes). */
  const sessionCall = (
    make: (session: GameSession, body: unknown) => Effect.Effect<HttpServerResponse.HttpServerResponse>
  ) =>
    Effect.gen(function*() {
      const { session: id } = yield* HttpRouter.params
      const session = yield* findSession(id ?? "")
      if (Option.isNone(session)) return notFound
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = yield* Effect.orElseSucceed(request.json, () => ({}))
      const spins = yield* repo.countSpin(session.value.id)
      if (spins > config.maxSpinsPerSession) return tooManySpins
      return yield* make(session.value, body)
    })

  yield* router.add(
    "POST",
    "/sandbox/casino/play/:session/spin",
    sessionCall((session, body) =>
      Effect.gen(function*() {
        const bet = Schema.decodeUnknownOption(SpinRequest)(body).pipe(
          Option.flatMap((spin) => Option.fromNullishOr(spin.bet))
        )
        const currency = storedCurrency(session.currency)
        const stake = minorOf(String(Option.getOrElse(bet, () => 1)), currency)
        if (stake === undefined) return stakeTooFine(currency)
        const reels = spinReels()
        const win = payout(reels, stake)
        const outcome = yield* aggregator.winBet(playerOf(session), { bet: stake, win })
        return HttpServerResponse.jsonUnsafe({
          txn_id: outcome.txnId,
          round_id: outcome.roundId,
          reels,
          bet: amountOnWire(stake, currency),
          win: amountOnWire(outcome.msg === "" ? win : 0n, currency),
          msg: outcome.msg,
          balance: outcome.balance,
          reason: outcome.reason
        })
      })
    )
  )

  /** A button acting on the page's last round. */
  const onRound = (
    act: (
      session: GameSession,
      round: typeof RoundRequest.Type
    ) => Effect.Effect<HttpServerResponse.HttpServerResponse>
  ) =>
    sessionCall((session, body) =>
      Option.match(Schema.decodeUnknownOption(RoundRequest)(body), {
        onNone: () => Effect.succeed(noRound),
        onSome: (round) => act(session, round)
      })
    )

  const zero = { bet: 0n, win: 0n }
  yield* router.add(
    "POST",
    "/sandbox/casino/play/:session/refund",
    onRound((session, round) =>
      Effect.map(
        aggregator.refund(playerOf(session), round.round_id),
        (outcome) => answered(outcome, storedCurrency(session.currency), zero)
      )
    )
  )
  yield* router.add(
    "POST",
    "/sandbox/casino/play/:session/rollback",
    onRound((session, round) =>
      Effect.map(
        aggregator.rollback(playerOf(session), round.round_id),
        (outcome) => answered(outcome, storedCurrency(session.currency), zero)
      )
    )
  )
  yield* router.add(
    "POST",
    "/sandbox/casino/play/:session/late-win",
    onRound((session, round) => {
      const currency = storedCurrency(session.currency)
      const win = minorOf(String(round.win ?? 1), currency)
      if (win === undefined) return Effect.succeed(stakeTooFine(currency))
      return Effect.map(
        aggregator.winBet(playerOf(session), { bet: 0n, win, roundId: round.round_id }),
        (outcome) => answered(outcome, currency, { bet: 0n, win })
      )
    })
  )
  yield* router.add(
    "POST",
    "/sandbox/casino/play/:session/refused-bet",
    sessionCall((session) =>
      Effect.gen(function*() {
        const currency = storedCurrency(session.currency)
        const player = yield* players.findByUserCode(session.user_code)
        const balance = Option.match(player, { onNone: () => session.balance, onSome: (p) => p.balance })
        const bet = stakeAboveBalance(balance, currency)
        const outcome = yield* aggregator.winBet(playerOf(session), { bet, win: 0n })
        return answered(outcome, currency, { bet, win: 0n })
      })
    )
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
}))
