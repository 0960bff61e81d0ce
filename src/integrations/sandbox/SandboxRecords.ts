import type { Duration, Effect, Option, Redacted } from "effect"
import { Schema } from "effect"
import type { Environment } from "../../domain/Environment.ts"
import type { Minor } from "../../domain/Money.ts"
import { IdFromBigInt, MinorFromNumeric } from "../../platform/SqlCodecs.ts"

// What SandboxRepo's two forms (SandboxRepo.ts over PostgreSQL, SandboxRepoMemory.ts) hold and offer.

/** A game session the sandbox aggregator opened at a launch. `balance` is the amount the launch sent. */
export const GameSession = Schema.Struct({
  id: Schema.String,
  user_code: IdFromBigInt,
  game_code: Schema.String,
  provider: Schema.String,
  player_name: Schema.NullOr(Schema.String),
  /** In `currency`'s minor units. */
  balance: MinorFromNumeric,
  currency: Schema.String,
  lang: Schema.String,
  spins: Schema.Int
})
export type GameSession = typeof GameSession.Type

export type NewGameSession = Omit<GameSession, "spins">

/** The demo partner wallet's answer to one callback: kept, so a repeated event gets it again. */
export const WalletReply = Schema.Struct({ status: Schema.Int, body: Schema.Unknown })
export type WalletReply = typeof WalletReply.Type

/** A callback the demo partner wallet received: its signature headers and its answer. */
export const ReceivedEvent = Schema.Struct({
  event_id: Schema.String,
  headers: Schema.Record(Schema.String, Schema.String),
  answer: WalletReply
})
export type ReceivedEvent = typeof ReceivedEvent.Type

/** Which event: the partner's, in one environment, by its id (the same id elsewhere is another event). */
export interface EventKey {
  readonly partnerId: number
  readonly environment: Environment
  readonly eventId: string
}

export interface NewReceivedEvent {
  readonly eventId: string
  readonly partnerId: number
  readonly environment: Environment
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly reply: WalletReply
  /** A rollback's bet: remembered, so that bet is refused if it arrives after its rollback. */
  readonly rollsBack: string | null
}

/** A wallet of the demo partner: one per player and currency (each currency's balance is its own). */
export interface WalletKey {
  readonly partnerId: number
  readonly externalPlayerId: string
  readonly currency: string
}

export interface SandboxRepoService {
  /** The secret the sandbox aggregator's wallet calls carry, generated once per database. */
  readonly agentSecret: Effect.Effect<Redacted.Redacted>
  /** Opens a session; sessions older than `ttl` are removed on the way. */
  openSession(session: NewGameSession, ttl: Duration.Duration): Effect.Effect<void>
  /** The session, unless it is older than `ttl`. */
  findSession(id: string, ttl: Duration.Duration): Effect.Effect<Option.Option<GameSession>>
  /** Counts one more spin of the session and returns the count. */
  countSpin(id: string): Effect.Effect<number>
  /** Runs `effect` in one transaction (the wallet applies an event whole or not at all). */
  transaction<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
  /** Sets a wallet's balance, opening the wallet if it has none. */
  setWalletBalance(wallet: WalletKey, balance: Minor): Effect.Effect<void>
  /** Opens a wallet at `balance` unless it is open already. */
  openWallet(wallet: WalletKey, balance: Minor): Effect.Effect<void>
  /** Whether the wallet is open. */
  hasWallet(wallet: WalletKey): Effect.Effect<boolean>
  /** The wallet's balance, locked until the transaction ends. */
  lockWallet(wallet: WalletKey): Effect.Effect<Minor>
  moveWallet(wallet: WalletKey, balance: Minor): Effect.Effect<void>
  /** The answer already given to this event, if any. */
  replyTo(event: EventKey): Effect.Effect<Option.Option<WalletReply>>
  /** Whether a rollback of this bet (its event) was received, from the same partner and environment. */
  isRolledBack(bet: EventKey): Effect.Effect<boolean>
  recordEvent(event: NewReceivedEvent): Effect.Effect<void>
  /** The events of a partner's environment among these ids. */
  received(
    owner: { readonly partnerId: number; readonly environment: Environment },
    eventIds: ReadonlyArray<string>
  ): Effect.Effect<ReadonlyArray<ReceivedEvent>>
}
