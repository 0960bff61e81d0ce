import { Clock, Context, Duration, Effect, Exit, Option, Redacted, Semaphore } from "effect"
import { randomBytes } from "node:crypto"
import type { Minor } from "../../domain/Money.ts"
import type {
  GameSession,
  NewReceivedEvent,
  ReceivedEvent,
  SandboxRepoService,
  WalletKey,
  WalletReply
} from "./SandboxRecords.ts"

// The sandbox's tables in memory, for tests without PostgreSQL (SandboxRepo.layerMemory): the same rules as the SQL
// in SandboxRepo.ts. A transaction holds the one lock of this instance to its end (the SQL's row locks, coarser) and
// leaves nothing of itself when it fails; one inside another is part of it.

/** Whether the current fiber is inside a transaction already. */
const InTransaction = Context.Reference<boolean>("partner-api/sandbox/SandboxRepoMemory/InTransaction", {
  defaultValue: () => false
})

export const make = (): SandboxRepoService => {
  const secret = Redacted.make(randomBytes(32).toString("hex"))
  const sessions = new Map<string, { session: GameSession; readonly createdAt: number }>()
  let wallets = new Map<string, Minor>()
  /** Keyed as the table is: partner, environment and event id. */
  let events = new Map<string, NewReceivedEvent>()
  const eventKey = (key: { readonly partnerId: number; readonly environment: string; readonly eventId: string }) =>
    `${key.partnerId}\u0000${key.environment}\u0000${key.eventId}`
  const lock = Semaphore.makeUnsafe(1)
  const walletId = (wallet: WalletKey) => JSON.stringify([wallet.partnerId, wallet.externalPlayerId, wallet.currency])
  const younger = (createdAt: number, ttl: Duration.Duration, now: number) =>
    !Duration.isFinite(ttl) || createdAt > now - Duration.toMillis(ttl)
  /** The balance column's CHECK (balance >= 0). */
  const checked = (balance: Minor) =>
    balance < 0
      ? Effect.die(new Error("new row for relation \"sandbox_partner_wallets\" violates check constraint"))
      : Effect.void

  return {
    agentSecret: Effect.succeed(secret),
    openSession: (session, ttl) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        for (const [id, open] of sessions) if (!younger(open.createdAt, ttl, now)) sessions.delete(id)
        if (sessions.has(session.id)) {
          return Effect.die(new Error(`sandbox_casino_sessions: session ${session.id} exists`))
        }
        sessions.set(session.id, { session: { ...session, spins: 0 }, createdAt: now })
        return Effect.void
      }),
    findSession: (id, ttl) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const open = sessions.get(id)
        return open === undefined || !younger(open.createdAt, ttl, now) ? Option.none() : Option.some(open.session)
      }),
    countSpin: (id) =>
      Effect.suspend(() => {
        const open = sessions.get(id)
        if (open === undefined) return Effect.die(new Error(`sandbox_casino_sessions: no session ${id}`))
        open.session = { ...open.session, spins: open.session.spins + 1 }
        return Effect.succeed(open.session.spins)
      }),
    transaction: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.flatMap(
        Effect.service(InTransaction),
        (inside) =>
          inside ? effect : lock.withPermit(Effect.gen(function*() {
            const kept = { wallets: new Map(wallets), events: new Map(events) }
            const exit = yield* Effect.exit(Effect.provideService(effect, InTransaction, true))
            if (Exit.isFailure(exit)) ({ wallets, events } = kept)
            return yield* exit
          }))
      ),
    setWalletBalance: (wallet, balance) =>
      Effect.andThen(checked(balance), Effect.sync(() => void wallets.set(walletId(wallet), balance))),
    openWallet: (wallet, balance) =>
      Effect.andThen(
        checked(balance),
        Effect.sync(() => {
          if (!wallets.has(walletId(wallet))) wallets.set(walletId(wallet), balance)
        })
      ),
    hasWallet: (wallet) => Effect.sync(() => wallets.has(walletId(wallet))),
    lockWallet: (wallet) =>
      Effect.suspend(() => {
        const balance = wallets.get(walletId(wallet))
        return balance === undefined
          ? Effect.die(new Error(`sandbox_partner_wallets: no wallet ${walletId(wallet)}`))
          : Effect.succeed(balance)
      }),
    moveWallet: (wallet, balance) =>
      Effect.andThen(
        checked(balance),
        Effect.sync(() => {
          if (wallets.has(walletId(wallet))) wallets.set(walletId(wallet), balance)
        })
      ),
    replyTo: (key) =>
      Effect.sync(() =>
        Option.map(Option.fromNullishOr(events.get(eventKey(key))), (event): WalletReply => event.reply)
      ),
    isRolledBack: (bet) =>
      Effect.sync(() =>
        [...events.values()].some((event) =>
          event.partnerId === bet.partnerId && event.environment === bet.environment && event.rollsBack === bet.eventId
        )
      ),
    recordEvent: (event) =>
      Effect.suspend(() => {
        if (events.has(eventKey(event))) {
          return Effect.die(new Error(`sandbox_partner_events: event ${event.eventId} is recorded already`))
        }
        // Kept as the jsonb columns hand them back: copies, no reference to a live object.
        events.set(eventKey(event), {
          ...event,
          headers: { ...event.headers },
          reply: JSON.parse(JSON.stringify(event.reply))
        })
        return Effect.void
      }),
    received: (owner, ids) =>
      Effect.sync(() =>
        ids.flatMap((id) => {
          const event = events.get(eventKey({ ...owner, eventId: id }))
          return event === undefined
            ? []
            : [{ event_id: event.eventId, headers: { ...event.headers }, answer: event.reply } satisfies ReceivedEvent]
        })
      )
  }
}
