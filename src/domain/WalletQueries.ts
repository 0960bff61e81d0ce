/** What the wallet's reads ask for: rounds open now, and the filters that find rounds and transactions. */
import type { Environment } from "./Environment.ts"
import type { Round, TransactionKind, TransactionStatus } from "./Wallet.ts"

/** A round open now, and since when (its oldest pending bet). */
export interface OpenRound {
  readonly round: Round
  readonly openSince: Date
}

export interface RoundFilter {
  readonly partnerId?: number | undefined
  readonly environment?: Environment | undefined
  /** A player's rows (one per currency it played in). */
  readonly playerIds?: ReadonlyArray<number> | undefined
  readonly roundId: string
}

export interface TransactionFilter {
  readonly partnerId?: number | undefined
  readonly environment?: Environment | undefined
  /** A player's rows (one per currency it played in). */
  readonly playerIds?: ReadonlyArray<number> | undefined
  readonly currency?: string | undefined
  readonly txnId?: string | undefined
  readonly kind?: TransactionKind | undefined
  readonly roundId?: string | undefined
  readonly status?: TransactionStatus | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
}
