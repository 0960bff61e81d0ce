/**
 * The sandbox aggregator's wallet events as the wallet's rule tests write them: a WinBet (stake and win in one) and a
 * refund of a round, for user 100001.
 */
import type { DebitAndCredit, Rollback } from "../../src/domain/WalletEvents.ts"

export const bet = (txnId: string, amounts: { bet: number; win: number }, roundId = txnId): DebitAndCredit => ({
  _tag: "DebitAndCredit",
  aggregator: "sandbox",
  userCode: 100_001,
  txnId,
  roundId,
  bet: BigInt(amounts.bet),
  win: BigInt(amounts.win),
  gameCode: "g",
  providerCode: "p"
})
export const refundOf = (txnId: string, roundId: string): Rollback => ({
  _tag: "Rollback",
  debitTxnId: null,
  aggregator: "sandbox",
  userCode: 100_001,
  txnId,
  roundId,
  gameCode: null,
  providerCode: null
})
