import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import { HttpServer } from "effect/http"
import { HttpApiTest } from "effect/http-api"
import { randomBytes } from "node:crypto"
import { AdminApi } from "../../src/api/admin/AdminApi.ts"
import { SessionForbidden, SessionUnauthorized, UpstreamFailed } from "../../src/api/admin/AdminErrors.ts"
import * as AdminAuth from "../../src/admin/http/AdminAuth.ts"
import { AdminSystemHandlers } from "../../src/admin/http/System.ts"
import { type SystemReport, SystemStatus } from "../../src/admin/SystemStatus.ts"
import { SportsAdmin } from "../../src/changes/SportsAdmin.ts"
import type { Page, SportsEvent, SportsLeague } from "../../src/domain/Sports.ts"
import { AdminAccounts } from "../../src/identity/AdminAccounts.ts"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"
import { RequestValidationLive } from "../../src/routes.ts"
import { SportsCatalog } from "../../src/sports/catalog/SportsCatalog.ts"
import { SportsProvider, SportsProviderError } from "../../src/sports/SportsProvider.ts"
import { type AdminSession, asAdmin, givenAdmin, sessionOf } from "../support/AdminConsole.ts"
import { TestConfig } from "../support/TestApp.ts"

/**
 * The console's contract for the system page, the audit trail, the sports catalog's refresh and the admin accounts
 * (the envelope, the report's wire names, who refreshed in the audit trail, a provider that fails as 502, 401
 * without a session, a viewer's 403), through the real handlers and middleware over memory: no socket, no
 * PostgreSQL. The system report itself (a database ping, both catalogs, the backlogs) is read over PostgreSQL in
 * admin-api.test.ts; here a report of its own shape stands in for it.
 */
const report: SystemReport = {
  version: "9.9.9",
  startedAt: new Date("2026-11-28T08:00:00.000Z"),
  database: { ok: true, embedded: true },
  casino: { gateway: "sandbox", aggregators: [], configured: true, providers: 3, games: 40 },
  sports: {
    provider: "sandbox",
    configured: true,
    rateLimitPerHour: 3600,
    catalog: { sports: 2, countries: 3, leagues: 4, teams: 5, events: 6 }
  },
  wallet: { pendingBets: 1, failedCallbacks: 2, pendingCallbacks: 3 },
  jobs: { queued: 4, locked: 5, failing: 6 },
  configuration: { SPORTS_PROVIDER: "sandbox", BETSAPI_TOKEN: "unset" }
}
const FixedStatus = Layer.succeed(SystemStatus, SystemStatus.of({ report: Effect.succeed(report) }))

const league: SportsLeague = { id: "900", name: "Premier Division", sportId: 1, countryCode: "gb" }
const match: SportsEvent = {
  id: "9001",
  sportId: 1,
  league,
  home: { id: "900-home", name: "Home", countryCode: null },
  away: { id: "900-away", name: "Away", countryCode: null },
  startsAt: new Date("2026-12-01T15:00:00.000Z"),
  status: "scheduled",
  score: null,
  minute: null,
  hasLineup: false,
  hasOdds: true
}

/** Whether the provider is down: it then refuses every call, as an unreachable BetsAPI would. */
const down = Ref.makeUnsafe(false)

/** A provider of one league and one match of soccer (sport 1), or of nothing but failures while `down`. */
const OneMatchProvider = Layer.succeed(
  SportsProvider,
  (() => {
    const answer = <A>(results: ReadonlyArray<A>) =>
      Effect.flatMap(Ref.get(down), (isDown) =>
        isDown
          ? Effect.fail(
            new SportsProviderError({ reason: "Unavailable", message: "The provider could not be reached." })
          )
          : Effect.succeed({
            value: { results, page: 1, perPage: 50, total: results.length } satisfies Page<A>,
            raw: null,
            storedAt: 0,
            origin: "upstream" as const
          }))
    const unused = () => Effect.die("not used by a refresh")
    return SportsProvider.of({
      name: "memory",
      configured: true,
      capabilities: [],
      sportIds: undefined,
      upcomingByDay: false,
      leagues: (query) => answer(query.sportId === 1 ? [league] : []),
      upcoming: (query) => answer(query.sportId === 1 ? [match] : []),
      live: () => answer<SportsEvent>([]),
      ended: () => answer<SportsEvent>([]),
      event: unused,
      odds: unused,
      liveOdds: unused,
      lineup: unused,
      statsTrend: unused,
      result: unused
    })
  })()
)

const InMemoryConsole = AdminSystemHandlers.pipe(
  Layer.provideMerge(Layer.mergeAll(AdminAuth.layer, RequestValidationLive)),
  Layer.provideMerge(Layer.mergeAll(AdminAccounts.layerMemory, SportsAdmin.layer, FixedStatus)),
  Layer.provideMerge(Layer.mergeAll(SportsCatalog.layerMemory, AuditRepo.layerMemory)),
  Layer.provideMerge(OneMatchProvider),
  Layer.provideMerge(TestConfig()),
  Layer.provideMerge(HttpServer.layerServices)
)

const clientAs = (session?: AdminSession) =>
  HttpApiTest.groups(AdminApi, ["system"]).pipe(Effect.provide(asAdmin(session)))
const unique = () => randomBytes(3).toString("hex")
const adminOf = (role: "operator" | "viewer") =>
  Effect.gen(function*() {
    const email = `${role}-${unique()}@example.com`
    yield* givenAdmin(email, role)
    return { email, api: yield* clientAs(yield* sessionOf(email)) }
  })

layer(InMemoryConsole)("the console's system group over memory", (it) => {
  it.effect("the system report, through the contract's codec (snake_case on the wire, dates as ISO)", () =>
    Effect.gen(function*() {
      const { api } = yield* adminOf("viewer")
      const answer = yield* api.system.status()
      assert.isTrue(answer.success)
      assert.deepStrictEqual(answer.system, report)
    }))

  it.effect("a refresh: the catalog's counts, who asked in the audit trail and among the last refreshes", () =>
    Effect.gen(function*() {
      const { api, email } = yield* adminOf("operator")
      const refreshed = yield* api.system.refreshSports()
      assert.isTrue(refreshed.success)
      assert.deepStrictEqual(
        [refreshed.report.leagues, refreshed.report.teams, refreshed.report.events],
        [1, 2, 1],
        "the one league, its two teams and its match"
      )
      const [last] = (yield* api.system.sportsRefreshes()).refreshes
      assert.strictEqual(last.actor, `${email} (console)`)
      assert.deepStrictEqual(last.report, refreshed.report)
      const audited = yield* api.system.audit({ query: { target: "sports:catalog" } })
      assert.deepStrictEqual(
        [audited.entries[0].actor, audited.entries[0].via, audited.entries[0].action],
        [email, "console", "sports.refresh"]
      )
      assert.lengthOf((yield* api.system.audit({ query: { target: "sports:catalog", limit: 1 } })).entries, 1)
    }))

  it.effect("a provider that fails is a 502 saying so, and nothing is audited", () =>
    Effect.gen(function*() {
      const { api } = yield* adminOf("operator")
      const before = (yield* api.system.sportsRefreshes()).refreshes.length
      yield* Ref.set(down, true)
      const failed = yield* Effect.flip(api.system.refreshSports()).pipe(Effect.ensuring(Ref.set(down, false)))
      assert.instanceOf(failed, UpstreamFailed)
      assert.strictEqual(
        failed.message,
        "The sports catalog could not be refreshed: The provider could not be reached."
      )
      assert.strictEqual((yield* api.system.sportsRefreshes()).refreshes.length, before)
    }))

  it.effect("the admin accounts; without a session 401; a viewer reads but refreshes nothing (403)", () =>
    Effect.gen(function*() {
      const { api, email } = yield* adminOf("viewer")
      const admins = (yield* api.system.admins()).admins
      assert.deepInclude(admins, { email, role: "viewer", disabled: false })
      assert.instanceOf(yield* Effect.flip((yield* clientAs()).system.status()), SessionUnauthorized)
      assert.instanceOf(yield* Effect.flip((yield* clientAs()).system.audit({ query: {} })), SessionUnauthorized)
      const refused = yield* Effect.flip(api.system.refreshSports())
      assert.instanceOf(refused, SessionForbidden)
      assert.strictEqual(refused.message, "Your role (viewer) can read but not change anything.")
    }))
})
