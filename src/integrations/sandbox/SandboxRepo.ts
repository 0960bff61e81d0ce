import { Context, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { Environment } from "../../domain/Environment.ts"
import { SqlClient, SqlSchema } from "effect/sql"
import { MinorFromNumeric } from "../../platform/SqlCodecs.ts"
import { GameSession, ReceivedEvent, type SandboxRepoService, WalletReply } from "./SandboxRecords.ts"
import * as SandboxRepoMemory from "./SandboxRepoMemory.ts"

export type {
  EventKey,
  GameSession,
  NewGameSession,
  NewReceivedEvent,
  ReceivedEvent,
  SandboxRepoService,
  WalletKey,
  WalletReply
} from "./SandboxRecords.ts"

/**
 * A test launch's session id says so, by a prefix no base64url id can start with ("." is not in its
 * alphabet): its spins then carry the test agent's credentials. Live ids are as they always were.
 */
const testSessionPrefix = "test."

/** A new session id, unguessable, for a launch in `environment`. */
export const newSessionId = (environment: Environment) =>
  `${environment === "test" ? testSessionPrefix : ""}${randomBytes(18).toString("base64url")}`

/** The environment of the launch that opened a session. */
export const sessionEnvironment = (id: string): Environment => id.startsWith(testSessionPrefix) ? "test" : "live"

/**
 * The sandbox's own tables, and the only place their SQL lives: the
 * sandbox aggregator's game sessions (sandbox_casino_sessions), its agent
 * secret (service_secrets), and the demo partner wallet's books
 * (sandbox_partner_wallets) and the callbacks it answered, rollback
 * tombstones among them (sandbox_partner_events).
 */
export class SandboxRepo extends Context.Service<SandboxRepo, SandboxRepoService>()("partner-api/sandbox/SandboxRepo") {
  static readonly layer = Layer.effect(
    SandboxRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      /** Rows younger than `ttl`; an infinite one keeps every row. */
      const youngerThan = (ttl: Duration.Duration) =>
        Duration.isFinite(ttl)
          ? sql`created_at > now() - make_interval(secs => ${Duration.toSeconds(ttl)})`
          : sql`true`

      const findSession = SqlSchema.findOneOption({
        Request: Schema.Struct({ id: Schema.String, ttl: Schema.Duration }),
        Result: GameSession,
        execute: ({ id, ttl }) =>
          sql`SELECT id, user_code, game_code, provider, player_name, balance, currency, lang, spins
              FROM sandbox_casino_sessions WHERE id = ${id} AND ${youngerThan(ttl)}`
      })
      const lockWallet = SqlSchema.findOne({
        Request: Schema.Struct({ partnerId: Schema.Int, externalPlayerId: Schema.String, currency: Schema.String }),
        Result: Schema.Struct({ balance: MinorFromNumeric }),
        execute: (wallet) =>
          sql`SELECT balance FROM sandbox_partner_wallets
              WHERE partner_id = ${wallet.partnerId} AND external_player_id = ${wallet.externalPlayerId}
                AND currency = ${wallet.currency} FOR UPDATE`
      })
      const replyTo = SqlSchema.findOneOption({
        Request: Schema.Struct({ partnerId: Schema.Number, environment: Environment, eventId: Schema.String }),
        Result: Schema.Struct({ answer: WalletReply }),
        execute: (key) =>
          sql`SELECT answer FROM sandbox_partner_events
              WHERE partner_id = ${key.partnerId} AND environment = ${key.environment} AND event_id = ${key.eventId}`
      })
      const received = SqlSchema.findAll({
        Request: Schema.Struct({
          partnerId: Schema.Number,
          environment: Environment,
          ids: Schema.Array(Schema.String)
        }),
        Result: ReceivedEvent,
        execute: ({ environment, ids, partnerId }) =>
          sql`SELECT event_id, headers, answer FROM sandbox_partner_events
              WHERE partner_id = ${partnerId} AND environment = ${environment} AND event_id = ANY(${ids}::text[])`
      })

      const agentSecret = SqlSchema.findOne({
        Request: Schema.Void,
        Result: Schema.Struct({ value: Schema.String }),
        execute: () => sql`SELECT value FROM service_secrets WHERE name = 'sandbox_agent_secret'`
      })
      const countSpin = SqlSchema.findOne({
        Request: Schema.String,
        Result: Schema.Struct({ spins: Schema.Int }),
        execute: (id) => sql`UPDATE sandbox_casino_sessions SET spins = spins + 1 WHERE id = ${id} RETURNING spins`
      })

      return SandboxRepo.of({
        agentSecret: agentSecret(undefined).pipe(
          Effect.map((row) => Redacted.make(row.value)),
          Effect.orDie
        ),
        openSession: (session, ttl) =>
          Effect.all([
            sql`DELETE FROM sandbox_casino_sessions WHERE NOT (${youngerThan(ttl)})`,
            sql`INSERT INTO sandbox_casino_sessions (id, user_code, game_code, provider, player_name, balance, currency, lang)
                VALUES (${session.id}, ${session.user_code}, ${session.game_code}, ${session.provider},
                        ${session.player_name}, ${String(session.balance)}, ${session.currency}, ${session.lang})`
          ], { discard: true }).pipe(Effect.orDie),
        findSession: (id, ttl) => Effect.orDie(findSession({ id, ttl })),
        countSpin: (id) =>
          countSpin(id).pipe(
            Effect.map((row) => row.spins),
            Effect.orDie
          ),
        transaction: (effect) => sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die)),
        setWalletBalance: (wallet, balance) =>
          sql`INSERT INTO sandbox_partner_wallets (partner_id, external_player_id, currency, balance)
              VALUES (${wallet.partnerId}, ${wallet.externalPlayerId}, ${wallet.currency}, ${String(balance)})
              ON CONFLICT (partner_id, external_player_id, currency) DO UPDATE SET balance = EXCLUDED.balance, updated_at = now()`
            .pipe(Effect.asVoid, Effect.orDie),
        openWallet: (wallet, balance) =>
          sql`INSERT INTO sandbox_partner_wallets (partner_id, external_player_id, currency, balance)
              VALUES (${wallet.partnerId}, ${wallet.externalPlayerId}, ${wallet.currency}, ${String(balance)})
              ON CONFLICT DO NOTHING`.pipe(Effect.asVoid, Effect.orDie),
        hasWallet: (wallet) =>
          sql`SELECT 1 FROM sandbox_partner_wallets
              WHERE partner_id = ${wallet.partnerId} AND external_player_id = ${wallet.externalPlayerId}
                AND currency = ${wallet.currency}`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          ),
        lockWallet: (wallet) => lockWallet(wallet).pipe(Effect.map((row) => row.balance), Effect.orDie),
        moveWallet: (wallet, balance) =>
          sql`UPDATE sandbox_partner_wallets SET balance = ${String(balance)}, updated_at = now()
              WHERE partner_id = ${wallet.partnerId} AND external_player_id = ${wallet.externalPlayerId}
                AND currency = ${wallet.currency}`
            .pipe(Effect.asVoid, Effect.orDie),
        replyTo: (key) => replyTo(key).pipe(Effect.map(Option.map((row) => row.answer)), Effect.orDie),
        isRolledBack: (bet) =>
          sql`SELECT 1 FROM sandbox_partner_events
              WHERE partner_id = ${bet.partnerId} AND environment = ${bet.environment} AND rolls_back = ${bet.eventId}`
            .pipe(
              Effect.map((rows) => rows.length > 0),
              Effect.orDie
            ),
        recordEvent: (event) =>
          sql`INSERT INTO sandbox_partner_events (event_id, partner_id, environment, headers, body, answer, rolls_back)
              VALUES (${event.eventId}, ${event.partnerId}, ${event.environment}, ${
            JSON.stringify(event.headers)
          }::jsonb, ${event.body},
                      ${JSON.stringify(event.reply)}::jsonb, ${event.rollsBack})`.pipe(Effect.asVoid, Effect.orDie),
        received: (owner, ids) => ids.length === 0 ? Effect.succeed([]) : Effect.orDie(received({ ...owner, ids }))
      })
    })
  )

  /** The same tables over memory, for tests without PostgreSQL (SandboxRepoMemory.ts). */
  static readonly layerMemory = Layer.sync(SandboxRepo, () => SandboxRepo.of(SandboxRepoMemory.make()))
}
