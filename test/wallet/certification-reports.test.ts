/**
 * Certification reports kept within bounds, over real HTTP and PostgreSQL: a wallet padding every answer to about
 * 60 KB (under the 64 KiB the service reads, so the run plays as usual) leaves a report under 210 KB, each body cut to
 * 2 KiB with its whole size; the partner lists its runs in pages and reads a report whole or a page of its cases at a
 * time, bad paging values refused naming the field; and the partner's own starts past CERTIFICATION_RUNS_PER_HOUR
 * are refused with a 429 saying when the next may start, the operators' runs counted but never refused; runs past
 * 90 days, inserted old by the test, are pruned with their case rows.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { keptBodyBytes, keptBodyBytesPastBudget } from "../../src/domain/Certification.ts"
import { caseKeys } from "../../src/domain/CertificationCaseTexts.ts"
import { runsKeptFor } from "../../src/domain/CertificationRuns.ts"
import { CertificationRepo } from "../../src/wallet/certification/CertificationRepo.ts"
import { Certifications } from "../../src/wallet/certification/Certifications.ts"
import { failedReasons, givenTestWallet } from "../support/CertificationWallet.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { eventually, live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { bearer, errorBody, givenPartner, request, TestApp, validationErrors } from "../support/TestApp.ts"

const books = new PartnerBooks()
const App = TestApp({ callbacks: { timeout: Duration.seconds(10), certificationRunsPerHour: 3 } }).pipe(
  Layer.provideMerge(FakeUpstream.layer(books.script))
)

const certifications = "/api/partner/v1/wallet/certifications"

/** A partner whose test callbacks go to the fake wallet, with a test player of 50.00 BRL on both sides. */
const givenFakeWallet = givenTestWallet(books, "fake")

/** A finished run of the partner, written by the test `minutesAgo` (started through `via`). */
const givenPastRun = (partnerId: number, minutesAgo: number, via: "api" | "console" = "api") =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ id: string; public_id: string; started_at: Date }>`
      INSERT INTO wallet_certifications
        (public_id, partner_id, external_player_id, currency, callback_url, partner_wallet, started_by, started_via,
         timeout_ms, status, summary, started_at, finished_at)
      VALUES ('cert_' || substr(md5(random()::text), 1, 16), ${partnerId}, 'old-player', 'BRL', 'http://gone', true,
              'test', ${via}, 3000, 'passed', '25 of 25 cases passed.', now() - make_interval(mins => ${minutesAgo}),
              now() - make_interval(mins => ${minutesAgo}))
      RETURNING id, public_id, started_at
    `).pipe(
      Effect.map(([row]) => ({ ref: Number(row.id), id: row.public_id, startedAt: row.started_at })),
      Effect.orDie
    )

layer(App, live)("certification reports within bounds", (it) => {
  it.effect(
    "a wallet padding every answer to 60 KB leaves a report under 210 KB, each body cut to 2 KiB with its whole size",
    () =>
      Effect.gen(function*() {
        const { external, test } = yield* givenFakeWallet
        books.knownPlayersOnly = true
        books.behaviour = "padded"
        const client = yield* partnerClient(test.token)
        const started =
          (yield* client.certifications.start({ payload: { external_player_id: external } })).data.certification
        yield* eventually(
          client.certifications.show({ params: { certification_id: started.id }, query: {} }),
          (answer) => answer.data.certification.status !== "running",
          "the run's end"
        ).pipe(Effect.ensuring(Effect.sync(() => (books.behaviour = "fine"))))
        const stored = yield* request("GET", `${certifications}/${started.id}`, { headers: bearer(test.token) })
        const report = (stored.body as { data: { certification: any } }).data.certification
        assert.strictEqual(report.status, "passed", report.summary)
        const bytes = Buffer.byteLength(JSON.stringify(stored.body))
        assert.isBelow(bytes, 210_000, `the report is ${bytes} bytes`)
        const answers = report.cases.flatMap((result: any) => result.exchanges).flatMap((exchange: any) =>
          exchange.response === null ? [] : [exchange.response]
        )
        const cut = answers.filter((answer: any) => answer.body_bytes > keptBodyBytes)
        assert.isAbove(cut.length, 50, "the padded answers")
        for (const answer of cut) {
          assert.isAbove(answer.body_bytes, 60_000)
          assert.isAtMost(Buffer.byteLength(answer.body), keptBodyBytes)
          assert.isTrue(answer.body.startsWith("{"), "its beginning")
        }
        assert.isTrue(
          cut.some((answer: any) => Buffer.byteLength(answer.body) <= keptBodyBytesPastBudget),
          "past the run's budget of kept bodies, a body keeps its beginning only"
        )
        // Requests are small: kept whole, their size beside them.
        const bet = report.cases.find((result: any) => result.key === "bet").exchanges[0]
        assert.strictEqual(bet.request.body_bytes, Buffer.byteLength(bet.request.body))
      }),
    { timeout: 120_000 }
  )

  it.effect(
    "the partner lists its runs newest first in pages, and reads a report whole or a page of its cases; bad values are a 422 naming the field",
    () =>
      Effect.gen(function*() {
        const { external, partner, test } = yield* givenFakeWallet
        const service = yield* Certifications
        const first = yield* service.run(partner.id, external, { name: "ops", via: "console" }).pipe(Effect.orDie)
        const second = yield* service.run(partner.id, external, { name: "ops", via: "cli" }).pipe(Effect.orDie)
        const client = yield* partnerClient(test.token)
        const listed = (yield* client.certifications.list({ query: {} })).data
        assert.deepStrictEqual(
          listed.certifications.map((run) => [run.id, run.started_via, run.status]),
          [[second.id, "cli", "passed"], [first.id, "console", "passed"]],
          `failed cases: ${JSON.stringify([first, second].flatMap(failedReasons))}`
        )
        assert.deepStrictEqual(listed.meta, { page: 1, per_page: 50, total: 2 })
        assert.notProperty(listed.certifications[0], "cases")
        const paged = (yield* client.certifications.list({ query: { page: 2, per_page: 1 } })).data
        assert.deepStrictEqual([paged.certifications.map((run) => run.id), paged.meta], [[first.id], {
          page: 2,
          per_page: 1,
          total: 2
        }])
        // Another partner sees none of them.
        const stranger = yield* givenPartner({ name: "Stranger" })
        assert.strictEqual(
          (yield* (yield* partnerClient(stranger.test.token)).certifications.list({ query: {} })).data.meta.total,
          0
        )

        const whole = (yield* client.certifications.show({ params: { certification_id: first.id }, query: {} })).data
        assert.strictEqual(whole.certification.cases.length, caseKeys.length)
        assert.notProperty(whole, "meta", "the whole report, as before")
        const page = (yield* client.certifications.show({
          params: { certification_id: first.id },
          query: { page: 2, per_page: 5 }
        })).data
        assert.deepStrictEqual(page.certification.cases.map((result) => result.key), caseKeys.slice(5, 10))
        assert.deepStrictEqual(page.meta, { page: 2, per_page: 5, total: caseKeys.length })

        for (const [query, field] of [["page=0", "page"], ["per_page=abc", "per_page"], ["page=1e2", "page"]]) {
          const refused = yield* request("GET", `${certifications}/${first.id}?${query}`, {
            headers: bearer(test.token)
          })
          assert.strictEqual(refused.status, 422, query)
          assert.property(validationErrors(refused), field, query)
          const listRefused = yield* request("GET", `${certifications}?${query}`, { headers: bearer(test.token) })
          assert.deepStrictEqual([listRefused.status, Object.keys(validationErrors(listRefused))], [422, [field]])
        }
        // A live token reads no list either.
        const live = yield* request("GET", certifications, { headers: bearer((yield* givenFakeWallet).token) })
        assert.strictEqual(live.status, 403)
      }),
    { timeout: 120_000 }
  )

  it.effect(
    "past CERTIFICATION_RUNS_PER_HOUR (3 here) the partner's start is a 429 saying when the next may start, with Retry-After; an operator's runs count and still start",
    () =>
      Effect.gen(function*() {
        const { external, partner, test } = yield* givenFakeWallet
        const oldest = yield* givenPastRun(partner.id, 40, "console")
        yield* givenPastRun(partner.id, 30)
        yield* givenPastRun(partner.id, 90)
        const started = yield* request("POST", certifications, {
          headers: bearer(test.token),
          json: { external_player_id: external }
        })
        assert.strictEqual(started.status, 200, JSON.stringify(started.body))
        const id = (started.body as { data: { certification: { id: string } } }).data.certification.id
        const client = yield* partnerClient(test.token)
        yield* eventually(
          client.certifications.show({ params: { certification_id: id }, query: {} }),
          (answer) => answer.data.certification.status !== "running",
          "the run's end"
        )

        // Three in the last hour, one of them the operator's: the partner's next is refused until the oldest leaves.
        const refused = yield* request("POST", certifications, {
          headers: bearer(test.token),
          json: { external_player_id: external }
        })
        assert.strictEqual(refused.status, 429)
        const next = new Date(oldest.startedAt.getTime() + 3_600_000)
        const message = errorBody(refused).message
        assert.include(message, "A partner may start 3 wallet certification runs in any hour")
        assert.include(message, `the next may start at ${next.toISOString().slice(11, 16)} UTC (in `)
        assert.match(message, /\(in (19|20|21) minutes\)\.$/)
        const retryAfter = Number(refused.headers["retry-after"])
        assert.isTrue(retryAfter > 18 * 60 && retryAfter <= 21 * 60, `Retry-After: ${retryAfter}`)

        // An operator's run is counted but not refused.
        const operators = yield* (yield* Certifications).run(partner.id, external, { name: "ops", via: "console" })
          .pipe(
            Effect.orDie
          )
        assert.strictEqual(operators.status, "passed")
      }),
    { timeout: 120_000 }
  )

  it.effect("runs older than 90 days are pruned with their case rows; each partner's latest verdict on its own wallet stays, however old", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const days = (n: number) => n * 24 * 60
      const [acme, other] = [(yield* givenFakeWallet).partner, (yield* givenFakeWallet).partner]
      const oldest = yield* givenPastRun(acme.id, days(120))
      const old = yield* givenPastRun(acme.id, days(91), "console")
      const recent = yield* givenPastRun(acme.id, days(89))
      const othersOld = yield* givenPastRun(other.id, days(100))
      const othersLatest = yield* givenPastRun(other.id, days(95))
      for (const run of [oldest, old, othersOld]) {
        yield* sql`
          INSERT INTO wallet_certification_cases (certification_id, position, case_key, status, reason, exchanges)
          VALUES (${run.ref}, 0, 'balance', 'passed', NULL, '[]'::jsonb)
        `
      }
      assert.strictEqual(yield* (yield* CertificationRepo).prune(runsKeptFor), 3)
      const left = yield* sql<{ public_id: string }>`
        SELECT public_id FROM wallet_certifications WHERE partner_id IN (${acme.id}, ${other.id}) ORDER BY id`
      assert.deepStrictEqual(left.map((row) => row.public_id), [recent.id, othersLatest.id])
      const [cases] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM wallet_certification_cases
        WHERE certification_id IN (${oldest.ref}, ${old.ref}, ${othersOld.ref})`
      assert.strictEqual(cases.n, 0, "their cases went with them")
    }))
})
