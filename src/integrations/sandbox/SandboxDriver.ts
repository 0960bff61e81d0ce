import { Context, Effect, Layer, Option, Schema } from "effect"
import { storedCurrency } from "../../domain/Currency.ts"
import { minorOf } from "../../domain/Money.ts"
import type { PartnerPlayer } from "../../domain/Partner.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { WalletRepo } from "../../wallet/WalletRepo.ts"
import { SandboxAggregator, type SandboxOutcome, type SandboxPlayer, stakeAboveBalance } from "./SandboxAggregator.ts"

/** No round of that id among the partner's test rounds of the sandbox aggregator. */
export class UnknownSandboxRound extends Schema.TaggedError<UnknownSandboxRound>()("UnknownSandboxRound", {
  message: Schema.String
}) {}

/** The call cannot be made as asked: `field` says what is wrong with it. */
export class SandboxCallRefused extends Schema.TaggedError<SandboxCallRefused>()("SandboxCallRefused", {
  field: Schema.String,
  message: Schema.String
}) {}

/** What a call did, for the partner API: its outcome, whose player it was and in which currency. */
export interface SandboxCall {
  readonly kind: "refund" | "rollback" | "late_win" | "refused_bet"
  readonly outcome: SandboxOutcome
  readonly externalPlayerId: string
  readonly currency: string
  /** The stake or win the call carried (minor units); 0 for a refund or a rollback. */
  readonly amount: bigint
}

/**
 * The sandbox driven by a partner's script (the partner API's test-token sandbox endpoints): the calls the game
 * page's buttons make, on a round the partner names by its id (as its callbacks carried it) or, for a bet its wallet
 * must refuse, on its test player. Test environment only: a test token reaches nothing else, and the sandbox
 * aggregator's rounds of the test environment are the only ones looked in.
 */
export class SandboxDriver extends Context.Service<SandboxDriver, {
  refund(partnerId: number, roundId: string): Effect.Effect<SandboxCall, UnknownSandboxRound>
  rollback(partnerId: number, roundId: string): Effect.Effect<SandboxCall, UnknownSandboxRound>
  lateWin(
    partnerId: number,
    roundId: string,
    amount: string
  ): Effect.Effect<SandboxCall, UnknownSandboxRound | SandboxCallRefused>
  refusedBet(
    partnerId: number,
    externalPlayerId: string,
    currency: string | null
  ): Effect.Effect<SandboxCall, SandboxCallRefused>
}>()("partner-api/sandbox/SandboxDriver") {
  static readonly layer = Layer.effect(
    SandboxDriver,
    Effect.gen(function*() {
      const aggregator = yield* SandboxAggregator
      const players = yield* PartnerPlayers
      const wallet = yield* WalletRepo

      const asSandbox = (player: PartnerPlayer, game: { gameCode: string | null; providerCode: string | null }) =>
        ({
          userCode: player.internalUserId,
          environment: "test",
          currency: player.currency,
          gameCode: game.gameCode ?? "sandbox",
          provider: game.providerCode ?? "sandbox"
        }) satisfies SandboxPlayer

      /** The partner's test round of the sandbox aggregator, its player and the game its bet was of. */
      const roundOf = Effect.fn("SandboxDriver.roundOf")(function*(partnerId: number, roundId: string) {
        const rounds = yield* wallet.rounds({ partnerId, environment: "test", roundId })
        const round = rounds.find((r) => r.aggregator === "sandbox")
        const player = round === undefined ? Option.none() : yield* players.findById(round.playerId)
        if (round === undefined || Option.isNone(player)) {
          return yield* new UnknownSandboxRound({ message: `No test round ${roundId} of the sandbox casino.` })
        }
        const [first] = yield* wallet.transactionsOfRounds([round.ref])
        return {
          player: player.value,
          sandbox: asSandbox(player.value, first ?? { gameCode: null, providerCode: null })
        }
      })

      const call = (kind: SandboxCall["kind"], player: PartnerPlayer, amount: bigint) => (outcome: SandboxOutcome) =>
        ({
          kind,
          outcome,
          externalPlayerId: player.externalPlayerId,
          currency: player.currency,
          amount
        }) satisfies SandboxCall

      return SandboxDriver.of({
        refund: (partnerId, roundId) =>
          Effect.flatMap(
            roundOf(partnerId, roundId),
            ({ player, sandbox }) => Effect.map(aggregator.refund(sandbox, roundId), call("refund", player, 0n))
          ),
        rollback: (partnerId, roundId) =>
          Effect.flatMap(
            roundOf(partnerId, roundId),
            ({ player, sandbox }) => Effect.map(aggregator.rollback(sandbox, roundId), call("rollback", player, 0n))
          ),
        lateWin: (partnerId, roundId, amount) =>
          Effect.gen(function*() {
            const { player, sandbox } = yield* roundOf(partnerId, roundId)
            const currency = storedCurrency(player.currency)
            const win = minorOf(amount, currency)
            if (win === undefined || win === 0n) {
              return yield* new SandboxCallRefused({
                field: "amount",
                message:
                  `The amount field must be above 0 with no more decimals than ${currency.code} has (${currency.exponent}).`
              })
            }
            return call("late_win", player, win)(yield* aggregator.winBet(sandbox, { bet: 0n, win, roundId }))
          }),
        refusedBet: (partnerId, externalPlayerId, currency) =>
          Effect.gen(function*() {
            const rows = (yield* players.findAll(partnerId, "test", externalPlayerId)).filter((row) =>
              currency === null || row.currency === currency
            )
            if (rows.length === 0) {
              return yield* new SandboxCallRefused({
                field: "external_player_id",
                message: `No test player ${externalPlayerId}${
                  currency === null ? "" : ` in ${currency}`
                }: launch a game with your test token first.`
              })
            }
            if (rows.length > 1) {
              return yield* new SandboxCallRefused({
                field: "currency",
                message: `The player plays in ${rows.map((row) => row.currency).join(", ")}: name one.`
              })
            }
            const player = rows[0]
            const bet = stakeAboveBalance(player.balance, storedCurrency(player.currency))
            const outcome = yield* aggregator.winBet(asSandbox(player, { gameCode: null, providerCode: null }), {
              bet,
              win: 0n
            })
            return call("refused_bet", player, bet)(outcome)
          })
      })
    })
  )
}
