import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { HttpApiTest } from "effect/http-api"
import { randomBytes } from "node:crypto"
import { AdminApi } from "../../src/api/admin/AdminApi.ts"
import { NotFound, SessionUnauthorized, ValidationFailed } from "../../src/api/admin/AdminErrors.ts"
import * as AdminAuth from "../../src/admin/http/AdminAuth.ts"
import { AdminOperationsHandlers } from "../../src/admin/http/Operations.ts"
import type { StatementLine } from "../../src/domain/Statements.ts"
import { computeStatement } from "../../src/domain/StatementDocument.ts"
import { AdminAccounts } from "../../src/identity/AdminAccounts.ts"
import { CallbackUrlPolicy } from "../../src/partners/CallbackUrlPolicy.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { RequestValidationLive } from "../../src/routes.ts"
import { OutboxRepo } from "../../src/wallet/outbox/OutboxRepo.ts"
import { StatementRepo } from "../../src/wallet/statements/StatementRepo.ts"
import { Statements } from "../../src/wallet/statements/Statements.ts"
import { OperatorAlerts } from "../../src/wallet/stuck/OperatorAlerts.ts"
import { StuckAlertRepo } from "../../src/wallet/stuck/StuckAlertRepo.ts"
import { UnreadableCallRepo } from "../../src/wallet/stuck/UnreadableCallRepo.ts"
import { StuckItems } from "../../src/wallet/stuck/StuckItems.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { type AdminSession, asAdmin, givenAdmin, sessionOf } from "../support/AdminConsole.ts"
import { CallbackTargetsOfRepo } from "../support/RepoPartner.ts"
import { givenPartner, TestConfig } from "../support/TestApp.ts"

/**
 * The console's contract for daily statements and stuck items (the envelope, amounts in units, a statement's
 * document digest and pages, 404 for an unknown partner or statement, 422 for a bad date, 401 without a session),
 * through the real handlers over the memory twins of the statements and the stuck alerts: no socket, no PostgreSQL.
 * Closing days and noticing stuck items over the real wallet are in statements.test.ts and stuck.test.ts.
 */
const NoAlerts = Layer.succeed(
  OperatorAlerts,
  OperatorAlerts.of({ enabled: false, send: () => Effect.die("no OPERATOR_ALERT_URL in these specs") })
)

const InMemoryConsole = AdminOperationsHandlers.pipe(
  Layer.provideMerge(Layer.mergeAll(AdminAuth.layer, RequestValidationLive)),
  Layer.provideMerge(Layer.mergeAll(AdminAccounts.layerMemory, Statements.layer, StuckItems.layer)),
  Layer.provideMerge(Layer.mergeAll(OutboxRepo.layerMemory, CallbackTargetsOfRepo)),
  Layer.provideMerge(
    Layer.mergeAll(
      WalletRepo.layerMemory,
      Partners.layerNoDeps,
      StatementRepo.layerMemory,
      StuckAlertRepo.layerMemory,
      UnreadableCallRepo.layerMemory,
      NoAlerts
    )
  ),
  Layer.provideMerge(Layer.mergeAll(PartnerRepo.layerMemory, CallbackUrlPolicy.layer, PartnerPlayers.layerMemory)),
  Layer.provideMerge(TestConfig()),
  Layer.provideMerge(HttpServer.layerServices)
)

const clientAs = (session?: AdminSession) =>
  HttpApiTest.groups(AdminApi, ["operations"]).pipe(Effect.provide(asAdmin(session)))
const unique = () => randomBytes(3).toString("hex")
const viewer = Effect.gen(function*() {
  const email = `viewer-${unique()}@example.com`
  yield* givenAdmin(email, "viewer")
  return yield* clientAs(yield* sessionOf(email))
})
const at = new Date("2026-11-20T08:00:00.000Z")

/** A partner with its statement of 2026-11-20 written: three bets of 10.00, one won 25.00. */
const givenStatement = Effect.gen(function*() {
  const { partner } = yield* givenPartner({ name: `Partner ${unique()}` })
  const lines = [1, 2, 3].map((n): StatementLine => ({
    txnId: `t-${n}`,
    kind: "bet",
    status: "applied",
    refusal: null,
    note: null,
    rolledBack: false,
    externalPlayerId: "p-1",
    roundId: `r-${n}`,
    gameCode: "g",
    providerCode: "p",
    currency: "BRL",
    bet: 1_000n,
    win: n === 2 ? 2_500n : 0n,
    amount: n === 2 ? 1_500n : -1_000n,
    createdAt: new Date(at.getTime() + n * 60_000),
    settledAt: new Date(at.getTime() + n * 60_000)
  }))
  const computed = computeStatement({
    partner: partner.slug,
    environment: "live",
    date: "2026-11-20",
    computedAt: new Date("2026-11-21T00:05:00.000Z")
  }, lines)
  yield* Effect.flatMap(
    Effect.service(StatementRepo),
    (repo) =>
      repo.close(
        "2026-11-20",
        new Date(),
        () =>
          Effect.succeed({ statements: [{ partnerId: partner.id, environment: "live", computed }], complete: false })
      )
  )
  return { partner, computed }
})

layer(InMemoryConsole)("the console's statements and stuck items over memory", (it) => {
  it.effect("statements are listed with their partner and totals in units, narrowed by partner; an unknown partner is 404", () =>
    Effect.gen(function*() {
      const api = yield* viewer
      const { computed, partner } = yield* givenStatement
      const listed = yield* api.operations.statements({ query: { partner: partner.slug } })
      assert.deepStrictEqual(listed.statements, [{
        partner: partner.slug,
        environment: "live",
        date: "2026-11-20",
        transactions: computed.summary.counts.transactions,
        currencies: [{
          currency: "BRL",
          transactions: 3,
          totals: { bets: 30, wins: 25, refunds: 0, rollbacks: 0, net: -5 }
        }],
        computedAt: new Date("2026-11-21T00:05:00.000Z")
      }])
      assert.deepStrictEqual(
        (yield* api.operations.statements({ query: { partner: partner.slug, environment: "test" } })).statements,
        []
      )
      assert.instanceOf(
        yield* Effect.flip(api.operations.statements({ query: { partner: "no-such-partner" } })),
        NotFound
      )
      assert.instanceOf(
        yield* Effect.flip((yield* clientAs()).operations.statements({ query: {} })),
        SessionUnauthorized
      )
    }))

  it.effect("a statement: its summary, its document's digest and size, its transactions a page at a time; a bad date is 422", () =>
    Effect.gen(function*() {
      const api = yield* viewer
      const { computed, partner } = yield* givenStatement
      const read = yield* api.operations.statement({
        params: { partner: partner.slug, environment: "live", date: "2026-11-20" },
        query: { per_page: 2, page: 2 }
      })
      assert.deepStrictEqual(read.document, {
        sha256: Buffer.from(computed.sha256).toString("hex"),
        bytes: Buffer.byteLength(computed.document),
        lines: computed.summary.counts.transactions + 1
      })
      assert.deepStrictEqual(read.meta, { page: 2, per_page: 2, total: computed.summary.counts.transactions })
      assert.strictEqual(read.transactions.length, computed.summary.counts.transactions - 2)
      assert.isString(read.signature)
      const bad = yield* Effect.flip(
        api.operations.statement({
          params: { partner: partner.slug, environment: "live", date: "2026-13-40" },
          query: {}
        })
      )
      assert.deepStrictEqual((bad as ValidationFailed).errors, {
        date: ["The date field must be a date (YYYY-MM-DD)."]
      })
      assert.instanceOf(
        yield* Effect.flip(
          api.operations.statement({
            params: { partner: "no-such-partner", environment: "live", date: "2026-11-20" },
            query: {}
          })
        ),
        NotFound
      )
      assert.instanceOf(
        yield* Effect.flip(
          api.operations.statement({
            params: { partner: partner.slug, environment: "test", date: "2026-11-20" },
            query: {}
          })
        ),
        NotFound,
        "a statement not written is a 404 saying why"
      )
    }))

  it.effect("stuck: the threshold, whether alerts are sent, nothing stuck now, and what was resolved lately with its partner", () =>
    Effect.gen(function*() {
      const api = yield* viewer
      const { partner } = yield* givenPartner({ name: `Partner ${unique()}` })
      const alerts = yield* StuckAlertRepo
      const item = {
        kind: "round" as const,
        ref: 77,
        partnerId: partner.id,
        environment: "live" as const,
        subject: "round-77",
        transactionId: null,
        externalPlayerId: null,
        since: at,
        detail: "Round round-77 is open with 1 bet waiting for the partner."
      }
      yield* alerts.record([item], false)
      yield* alerts.resolveUnseen("round", [])
      const view = yield* api.operations.stuck()
      assert.deepStrictEqual([view.success, view.alerts, view.items, view.truncated], [true, false, [], []])
      assert.match(view.stuck_round_after, /\d/)
      const resolved = view.resolved.find((entry) => entry.subject === "round-77")
      assert.deepStrictEqual(
        [resolved?.kind, resolved?.partner, resolved?.environment, resolved?.since, resolved?.alertStatus],
        ["round", partner.slug, "live", at, "off"]
      )
    }))
})
