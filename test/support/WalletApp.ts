import { Effect, Layer, Option, Redacted } from "effect"
import { CallbackWorker } from "../../src/callbacks/CallbackWorker.ts"
import { WalletCredentials } from "../../src/callbacks/WalletCredentials.ts"
import { PartnerPlayers } from "../../src/casino/PartnerPlayers.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { FakeUpstream } from "./FakeUpstream.ts"
import type { PartnerBooks } from "./FakePartner.ts"
import { request, TestApp, type TestSettings } from "./TestApp.ts"

/** The whole service with its notification worker, and a partner wallet (`books`) on a real port. */
export const WalletApp = (books: PartnerBooks, settings: TestSettings = {}) =>
  CallbackWorker.pipe(
    Layer.provideMerge(TestApp(settings)),
    Layer.provideMerge(FakeUpstream.layer(books.script))
  )

let partners = 0

/** A partner whose callbacks go to the fake wallet, which knows its webhook secret. */
export const givenWalletPartner = (books: PartnerBooks, options: { readonly callbackUrl?: string | null } = {}) =>
  Effect.gen(function*() {
    const fake = yield* FakeUpstream
    const created = yield* Effect.orDie((yield* Partners).create({
      name: `Wallet Partner ${++partners}`,
      callbackUrl: options.callbackUrl === undefined ? `${fake.url}/wallet` : options.callbackUrl
    }))
    books.secrets.add(created.webhookSecret)
    return created
  })

/** A player of the partner, with the same balance in the partner's books; `user_code` is what the aggregator knows. */
export const givenPlayer = (books: PartnerBooks, partnerId: number, externalPlayerId: string, balance: number) =>
  Effect.gen(function*() {
    const player = yield* (yield* PartnerPlayers).arrive({ partnerId, externalPlayerId, name: null, email: null, balance })
    books.balances.set(externalPlayerId, Math.round(balance * 100))
    return player
  })

/** A wallet call as the aggregator makes it, with the agent credentials the service expects. */
export const walletCall = (body: Record<string, unknown>) =>
  Effect.gen(function*() {
    const credentials = Option.getOrThrow((yield* WalletCredentials).expected)
    return yield* request("POST", "/aggregator/wallet", {
      json: { agent_code: credentials.agentCode, agent_secret: Redacted.value(credentials.agentSecret), ...body }
    })
  })

export const winBet = (
  userCode: number,
  txnId: string,
  amounts: { readonly bet: number; readonly win: number },
  roundId: string = txnId
) =>
  walletCall({
    type: "WinBet",
    user_code: userCode,
    user_balance: 0,
    game_type: "slot",
    game_original: true,
    slot: {
      bet: amounts.bet,
      win: amounts.win,
      type: "BASE",
      txn_id: txnId,
      round_id: roundId,
      txn_type: "debit_credit",
      game_code: "ag-hidden-fortune",
      provider_code: "aurora-gaming",
      created_at: "2026-11-22 12:00:00"
    }
  })

export const refund = (userCode: number, txnId: string, roundId: string) =>
  walletCall({ type: "Refund", user_code: userCode, slot: { txn_id: txnId, round_id: roundId } })

export const balance = (userCode: number) => walletCall({ type: "Balance", user_code: userCode })
