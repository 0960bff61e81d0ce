import { Clock, Context, Duration, Effect, Layer, Option, Schema } from "effect"
import { createHmac } from "node:crypto"
import { type Environment, environments } from "../../domain/Environment.ts"
import { signingSecrets } from "../../domain/Partner.ts"
import { dayOf, dayStart, nextDay, previousDay, type StatementLine, statementLine } from "../../domain/Statements.ts"
import {
  computeStatement,
  type LegacyCurrency,
  linesOf,
  type StatementSummary,
  summaryOf
} from "../../domain/StatementDocument.ts"
import {
  type PostedTotals,
  type PostedTransaction,
  reconcile,
  type Reconciliation
} from "../../domain/StatementReconciliation.ts"
import { CallbackTargets } from "../../partners/CallbackTargets.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { Partners } from "../../partners/Partners.ts"
import { CallbacksConfig } from "../CallbacksConfig.ts"
import { OutboxRepo } from "../outbox/OutboxRepo.ts"
import { WalletRepo } from "../WalletRepo.ts"
import { type ListedStatement, type NewStatement, StatementRepo } from "./StatementRepo.ts"

/**
 * How statements are signed: HMAC-SHA256 keyed with the partner's webhook secret of the statement's
 * environment, over the JSON lines document byte for byte, sent as `X-Statement-Signature: v1=<hex>`. While a
 * rotated secret still signs callbacks (PARTNER_WEBHOOK_SECRET_OVERLAP), the header carries one signature per
 * secret, newest first: `v1=<new>,v1=<old>`. The document's SHA-256 (hex) is `X-Statement-SHA256`.
 */
export const signStatement = (secrets: ReadonlyArray<string>, document: string): string =>
  secrets.map((secret) => `v1=${createHmac("sha256", secret).update(document).digest("hex")}`).join(",")

/** Why a day has no statement to read (yet): it has not ended, it is being closed, or it precedes statements. */
export class StatementNotReady extends Schema.TaggedError<StatementNotReady>()("StatementNotReady", {
  message: Schema.String
}) {}

/** A statement as read: its summary and its document (stored, or computed the same way for a day without activity). */
export interface StatementRead {
  readonly summary: StatementSummary
  readonly document: string
  readonly sha256: Uint8Array
  /**
   * The currency a document written before currencies is in (its stored totals'); what `linesOf` reads its lines
   * with. Undefined for a day without activity.
   */
  readonly legacyCurrency: LegacyCurrency
}

/** A statement with its `X-Statement-Signature`. */
export interface SignedStatement extends StatementRead {
  readonly signature: string
}

/** A day's statement against the partner's own books: what it counted, what they posted, where they differ. */
export interface Reconciled {
  readonly day: string
  readonly environment: Environment
  readonly summary: StatementSummary
  /** How many transactions the partner posted. */
  readonly posted: number
  readonly reconciliation: Reconciliation
}

/** The partner whose statement is read, as the envelope names it. */
export interface StatementOwner {
  readonly id: number
  readonly slug: string
  /** When its account was created: a day that ended before it has no statement. */
  readonly createdAt: Date
}

/**
 * Daily statements: once a UTC day has ended (and a minute plus WALLET_PENDING_TIMEOUT more, so that every
 * transaction dated that day has committed), every environment of every partner that existed then gets its
 * statement of the day, computed once across the fleet and stored (a day without activity too: an empty
 * statement). One with a bet of that day still pending waits for it (bets settle within WALLET_PENDING_TIMEOUT,
 * recovery included); the others do not wait. Statements begin with the day of the ledger's first transaction,
 * or the day before the first close, whichever is earlier.
 */
export class Statements extends Context.Service<Statements, {
  /** Writes the statements of the days that ended not written yet, oldest day first, each once across the fleet; the days it wrote to. */
  readonly closeDays: Effect.Effect<ReadonlyArray<string>>
  /**
   * Closes today's test statement so far (a test environment's only): marked `partial`, re-closable, replaced by the
   * day's own once the day ends. The day, and the statement as read, signed.
   */
  closeSoFar(
    partner: StatementOwner & { readonly environment: Environment }
  ): Effect.Effect<{ readonly day: string; readonly statement: SignedStatement }, StatementNotReady>
  read(partner: StatementOwner, environment: Environment, day: string): Effect.Effect<StatementRead, StatementNotReady>
  /** The `X-Statement-Signature` of a document, with the environment's webhook secrets valid now. */
  signature(partnerId: number, environment: Environment, document: string): Effect.Effect<string>
  /** A partner's statement of a day in its token's environment, signed. */
  readSigned(
    partner: StatementOwner & { readonly environment: Environment },
    day: string
  ): Effect.Effect<SignedStatement, StatementNotReady>
  /**
   * A partner's statement of a day (`read` first, in its token's environment, so a day without one is refused before
   * the partner's books are read), against the partner's own books.
   */
  reconcile(
    partner: { readonly environment: Environment },
    day: string,
    statement: StatementRead,
    theirs: { readonly lines: ReadonlyArray<PostedTransaction>; readonly totals?: PostedTotals | undefined }
  ): Effect.Effect<Reconciled>
  /** The latest stored statements, newest day first. */
  recent(
    filter: {
      readonly partnerId?: number | undefined
      readonly environment?: Environment | undefined
      readonly limit: number
    }
  ): Effect.Effect<
    ReadonlyArray<ListedStatement>
  >
}>()("partner-api/wallet/Statements") {
  static readonly layer = Layer.effect(
    Statements,
    Effect.gen(function*() {
      const repo = yield* StatementRepo
      const wallet = yield* WalletRepo
      const outbox = yield* OutboxRepo
      const players = yield* PartnerPlayers
      const partners = yield* Partners
      const targets = yield* CallbackTargets
      const closeAfter = Duration.sum(Duration.minutes(1), (yield* CallbacksConfig).pendingTimeout)

      /**
       * The lines of a partner environment's transactions created in [from, to) (a day, or today so far), each with its
       * player's own id and whether a rollback was sent. `settledOnly`: a bet still pending is left out (a day's close
       * waits for them; a close so far cannot, and a pending bet is no line of either status).
       */
      const linesBetween = Effect.fnUntraced(
        function*(partnerId: number, environment: Environment, from: Date, to: Date, settledOnly = false) {
          const created = yield* wallet.createdBetween(partnerId, environment, from, to)
          const transactions = settledOnly ? created.filter((t) => t.status !== "pending") : created
          if (transactions.length === 0) return []
          const [owners, rolledBack] = yield* Effect.all([
            players.findByIds([...new Set(transactions.map((t) => t.playerId))]),
            outbox.rolledBack(transactions.filter((t) => t.kind === "bet" && t.status === "refused").map((t) => t.ref))
          ])
          const byId = new Map(owners.map((player) => [player.id, player.externalPlayerId]))
          return transactions.map((t): StatementLine =>
            statementLine(t, byId.get(t.playerId) ?? "", rolledBack.has(t.ref))
          )
        }
      )

      /**
       * The statements of `day` not written yet (`written` has those that are), for every environment of every
       * partner that existed before the day ended; one with a bet of the day still pending waits for it.
       */
      const statementsOf = (day: string, closedAt: Date) => (written: ReadonlySet<string>) =>
        Effect.gen(function*() {
          const end = dayStart(nextDay(day))
          const waiting = new Set(
            (yield* wallet.pendingBetween(dayStart(day), end)).map((pair) => `${pair.partnerId}:${pair.environment}`)
          )
          const statements: Array<NewStatement> = []
          for (const partner of (yield* partners.list).filter((partner) => partner.createdAt < end)) {
            for (const environment of environments) {
              const key = `${partner.id}:${environment}`
              if (written.has(key) || waiting.has(key)) continue
              const lines = yield* linesBetween(partner.id, environment, dayStart(day), end)
              const computed = computeStatement(
                { partner: partner.slug, environment, date: day, computedAt: closedAt },
                lines
              )
              statements.push({ partnerId: partner.id, environment, computed })
            }
          }
          if (waiting.size > 0) {
            yield* Effect.logInfo(
              "Statements: a partner environment waits for its pending bets before its statement is written"
            ).pipe(
              Effect.annotateLogs({ day, waiting: [...waiting].join(" ") })
            )
          }
          return { statements, complete: waiting.size === 0 }
        })

      /** Statements begin with the first day written, else the ledger's first day or yesterday, the earlier. */
      const firstDay = (today: string) =>
        Effect.gen(function*() {
          const first = yield* repo.firstDay
          if (Option.isSome(first)) return first.value
          const yesterday = previousDay(today)
          return Option.match(yield* wallet.firstCreatedAt, {
            onNone: () => yesterday,
            onSome: (at) => [dayOf(at), yesterday].sort()[0]
          })
        })

      const closeDays = Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        // A wallet transaction is dated when it begins (PostgreSQL's now()) and seen once it commits: one begun just
        // before midnight (a refund waits up to WALLET_PENDING_TIMEOUT for its round's bet) may commit after it. A day
        // is written once it ended longer ago than that, and a minute for the clocks of the service and the database.
        const today = dayOf(now - Duration.toMillis(closeAfter))
        const closed: Array<string> = []
        for (const day of yield* repo.openDays(yield* firstDay(today), previousDay(today))) {
          const written = yield* repo.close(day, new Date(now), statementsOf(day, new Date(now)))
          if (written > 0) {
            closed.push(day)
            yield* Effect.logInfo("Statements: a day's statements were written").pipe(
              Effect.annotateLogs({ day, statements: written })
            )
          }
        }
        return closed
      }).pipe(Effect.withSpan("Statements.closeDays"))

      const read = Effect.fn("Statements.read")(
        function*(partner: StatementOwner, environment: Environment, day: string) {
          const stored = yield* repo.find(partner.id, environment, day)
          // A test statement of the day so far, while the day has none of its own (that one replaces it).
          const partial = Option.isNone(stored) && environment === "test"
            ? yield* repo.findPartial(partner.id, day)
            : Option.none()
          if (Option.isSome(partial)) {
            return {
              summary: summaryOf(partial.value.document),
              document: partial.value.document,
              sha256: partial.value.sha256,
              legacyCurrency: undefined
            } satisfies StatementRead
          }
          if (Option.isSome(stored)) {
            const legacyCurrency = stored.value.currencies[0]?.currency
            return {
              summary: summaryOf(stored.value.document, legacyCurrency),
              document: stored.value.document,
              sha256: stored.value.sha256,
              legacyCurrency
            } satisfies StatementRead
          }
          const today = dayOf(yield* Clock.currentTimeMillis)
          const end = dayStart(nextDay(day))
          if (partner.createdAt < end && (yield* repo.isComplete(day))) {
            // Every statement of the day was written: this one was deleted with the environment's test data since.
            return yield* new StatementNotReady({
              message: `There is no statement of ${day} for this environment: its test data was cleared.`
            })
          }
          if (day >= today) {
            return yield* new StatementNotReady({
              message:
                `The day ${day} has not ended yet: its statement is written after it ends, at ${end.toISOString()} (UTC), within minutes.`
            })
          }
          if (partner.createdAt >= end) {
            return yield* new StatementNotReady({
              message: `There is no statement for ${day}: the partner's account was created after it.`
            })
          }
          const first = yield* repo.firstDay
          if (Option.isSome(first) && day < first.value) {
            return yield* new StatementNotReady({
              message: `There is no statement for ${day}: statements begin on ${first.value}.`
            })
          }
          return yield* new StatementNotReady({
            message:
              `The statement of ${day} is not written yet: it is within minutes after the day ends, once none of its ` +
              "bets is still pending. Try again shortly."
          })
        }
      )

      /**
       * Today's test statement so far: the test environment's transactions of the UTC day up to now, written as a
       * statement marked `partial` with `closed_up_to`, kept (replacing the one closed before) until the day's own is
       * written after it ends. Never for live: a live statement is written once, after its day.
       */
      const closeSoFar = Effect.fn("Statements.closeSoFar")(function*(
        partner: StatementOwner & { readonly environment: Environment }
      ) {
        if (partner.environment !== "test") {
          return yield* new StatementNotReady({
            message: "Only the test environment's statement closes before its day ends."
          })
        }
        const now = new Date(yield* Clock.currentTimeMillis)
        const day = dayOf(now.getTime())
        const waiting = yield* wallet.pendingBetween(dayStart(day), now)
        if (waiting.some((pair) => pair.partnerId === partner.id && pair.environment === "test")) {
          return yield* new StatementNotReady({
            message:
              "A bet of today is still waiting for your wallet's answer: close the statement again in a few seconds."
          })
        }
        // Settled only: a bet begun after the look above may still wait for its answer.
        const lines = yield* linesBetween(partner.id, "test", dayStart(day), now, true)
        const computed = computeStatement(
          { partner: partner.slug, environment: "test", date: day, computedAt: now, upTo: now },
          lines
        )
        yield* repo.savePartial(partner.id, day, {
          document: computed.document,
          sha256: computed.sha256,
          closedUpTo: now
        }, now)
        return { day, statement: yield* readSigned(partner, day) }
      })

      const signature = Effect.fn("Statements.signature")(
        function*(partnerId: number, environment: Environment, document: string) {
          const target = yield* targets.get(partnerId, environment)
          const now = new Date(yield* Clock.currentTimeMillis)
          return Option.match(target, {
            onNone: () => "",
            onSome: (t) => signStatement(signingSecrets(t, now), document)
          })
        }
      )

      const readSigned = Effect.fn("Statements.readSigned")(function*(
        partner: StatementOwner & { readonly environment: Environment },
        day: string
      ) {
        const statement = yield* read(partner, partner.environment, day)
        return { ...statement, signature: yield* signature(partner.id, partner.environment, statement.document) }
      })

      const reconcileDay = Effect.fn("Statements.reconcile")(function*(
        partner: { readonly environment: Environment },
        day: string,
        statement: StatementRead,
        theirs: { readonly lines: ReadonlyArray<PostedTransaction>; readonly totals?: PostedTotals | undefined }
      ) {
        const ours = {
          lines: linesOf(statement.document, 0, Number.POSITIVE_INFINITY, statement.legacyCurrency),
          currencies: statement.summary.currencies,
          transactions: statement.summary.counts.transactions
        }
        return {
          day,
          environment: partner.environment,
          summary: statement.summary,
          posted: theirs.lines.length,
          reconciliation: reconcile(ours, theirs)
        } satisfies Reconciled
      })

      return Statements.of({
        closeDays,
        closeSoFar,
        read,
        signature,
        readSigned,
        reconcile: reconcileDay,
        recent: repo.recent
      })
    })
  )
}
