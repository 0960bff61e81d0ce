import { PartnerPlayer } from "../../src/domain/Partner.ts"
import type { Round, WalletTransaction } from "../../src/domain/Wallet.ts"

// One player of one partner and a settled round of theirs, for the ledger's pure rules (test/domain).

export const player = new PartnerPlayer({
  id: 7,
  partnerId: 3,
  environment: "live",
  externalPlayerId: "p-42",
  internalUserId: 1000042,
  currency: "BRL",
  name: null,
  email: null,
  balance: 10_000n
})

export const at = new Date("2026-11-22T13:00:00.000Z")

/** What every money event of the player's round "r-1" carries, at the sandbox. */
export const eventFields = {
  aggregator: "sandbox",
  userCode: 1000042,
  roundId: "r-1",
  gameCode: "g",
  providerCode: "p"
} as const

/** The player's round "r-1", settled with one stake of 500 (and the wins `winTotal` says). */
export const roundOf = (overrides: Partial<Round> = {}): Round => ({
  ref: 11,
  partnerId: 3,
  environment: "live",
  playerId: 7,
  aggregator: "sandbox",
  roundId: "r-1",
  status: "settled",
  pendingBets: 0,
  betTotal: 500n,
  winTotal: 0n,
  refundedEarly: false,
  createdAt: at,
  updatedAt: at,
  version: 0,
  ...overrides
})

/** The stake d-1 of 500 on round r-1, applied (what `overrides` says otherwise). */
export const transactionRow = (overrides: Partial<WalletTransaction>): WalletTransaction => ({
  ref: 1,
  kind: "bet",
  txnId: "d-1",
  fingerprint: null,
  partnerId: 3,
  environment: "live",
  aggregator: "sandbox",
  playerId: 7,
  currency: "BRL",
  roundRef: 11,
  roundId: "r-1",
  debitTxnId: null,
  gameCode: "g",
  providerCode: "p",
  bet: 500n,
  win: 0n,
  status: "applied",
  refusal: null,
  note: null,
  amount: -500n,
  balanceAfter: 9_500n,
  answer: { refusal: null, balance: 9_500n },
  createdAt: at,
  settledAt: at,
  ageMillis: 0,
  ...overrides
})
