import { Effect, Layer, Option } from "effect"
import type { Environment } from "../../src/domain/Environment.ts"
import type { NewCallback } from "../../src/domain/Callbacks.ts"
import type { PartnerPlayer } from "../../src/domain/Partner.ts"
import { accepted } from "../../src/domain/WalletEvents.ts"
import type { NewTransaction } from "../../src/domain/WalletWrites.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { CallbackTargets } from "../../src/partners/CallbackTargets.ts"
import { randomBytes } from "node:crypto"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"

/**
 * A partner row of its own for a repository's spec (whatever form PartnerRepo has): the rows of other tables
 * reference partners, by a foreign key in PostgreSQL and by look-up in memory.
 */
export const givenRepoPartner = Effect.gen(function*() {
  const slug = `p-${randomBytes(4).toString("hex")}`
  const token = () => ({ hash: randomBytes(32), prefix: "pak_x_" })
  const { partner } = yield* (yield* PartnerRepo).insert({
    name: `Partner ${slug}`,
    slug,
    status: "active",
    commissionPercent: 10,
    rateLimitPerMinute: null,
    environments: { live: { callbackUrl: null, token: token() }, test: { callbackUrl: null, token: token() } }
  }).pipe(Effect.orDie)
  return partner
})

/** A live player of BRL 100.00 of a partner of its own (givenRepoPartner), for the wallet's and the outbox's specs. */
export const givenRepoPlayer = Effect.gen(function*() {
  const partner = yield* givenRepoPartner
  return yield* (yield* PartnerPlayers).arrive({
    partnerId: partner.id,
    environment: "live",
    externalPlayerId: `p-${randomBytes(4).toString("hex")}`,
    currency: "BRL",
    name: null,
    email: null,
    balance: 10_000n
  })
})

/** A transaction of `kind` for the player, in the sandbox's BRL, for a repository's spec to write; `more` overrides. */
export const repoTransaction = (
  player: PartnerPlayer,
  kind: NewTransaction["kind"],
  txnId: string,
  more: Partial<NewTransaction> = {}
): NewTransaction => ({
  aggregator: "sandbox",
  currency: "BRL",
  kind,
  txnId,
  fingerprint: txnId,
  partnerId: player.partnerId,
  environment: player.environment,
  playerId: player.id,
  roundId: `round-${txnId}`,
  debitTxnId: null,
  gameCode: "g",
  providerCode: "p",
  bet: 0n,
  win: 0n,
  ...more
})

/** The win notification of the player's transaction `txnId`, for a repository's spec to write with it. */
export const repoWinCallback = (player: PartnerPlayer, txnId: string, body = "{}"): NewCallback => ({
  partnerId: player.partnerId,
  environment: player.environment,
  playerId: player.id,
  kind: "win",
  txnId,
  eventId: `evt_${txnId}`,
  body
})

/**
 * Each partner's callback targets as PartnerRepo has them, read every time (no cache): for handler specs over
 * memory, whose partners are made by the tests. A test environment without a URL of its own has a placeholder's, as
 * the service gives it the sandbox wallet's.
 */
export const CallbackTargetsOfRepo = Layer.effect(
  CallbackTargets,
  Effect.map(Effect.service(PartnerRepo), (repo) => {
    const get = (partnerId: number, environment: Environment) =>
      Effect.map(
        repo.findCallbackTarget(partnerId, environment),
        Option.map((target) =>
          environment === "test" && target.callbackUrl === null
            ? { ...target, callbackUrl: "https://sandbox.example/wallet" }
            : target
        )
      )
    return CallbackTargets.of({ get, fresh: get })
  })
)

/**
 * A credit decided for the player as they are now (a free win on a round of its own, the mirror left as it is), with
 * its win notification, written by the wallet's repository; the notification's event id.
 */
export const writeRepoWin = (player: PartnerPlayer) =>
  Effect.gen(function*() {
    const txnId = `win-${randomBytes(4).toString("hex")}`
    const callback = repoWinCallback(player, txnId, "{\"amount\":1}")
    const mirror = Option.getOrThrow(yield* (yield* PartnerPlayers).findById(player.id)).balance
    yield* (yield* WalletRepo).recordDecided(
      repoTransaction(player, "credit", txnId, { win: 100n }),
      {
        status: "applied",
        refusal: null,
        note: null,
        amount: 100n,
        balanceAfter: null,
        answer: accepted(0n),
        mirror: null
      },
      { _tag: "Create", status: "settled", refundedEarly: false, addBet: 0n, addWin: 100n },
      [callback],
      { playerId: player.id, mirror }
    )
    return callback.eventId
  }).pipe(Effect.orDie)
