/**
 * Daily statements over real PostgreSQL and real HTTP: each statement written once however many close the day at
 * once (one whose bet of the day is pending waits for it, the others do not), equal to the ledger summed by SQL, its JSON lines document
 * verified by the partner guide's own snippet, a test token reading only test statements, a day not ended or without
 * activity, and a partner's books reconciled against it: the transaction it left out, the one it has otherwise,
 * the one it has and we do not. Time is a TestClock where it is the subject: the day is closed as if it were
 * tomorrow.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { HttpBody, HttpClient, HttpClientRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { NotFound } from "../../src/api/Errors.ts"
import { dayOf, dayStart, nextDay, previousDay } from "../../src/domain/Statements.ts"
import { betOf, betSettlement } from "../../src/domain/WalletRecords.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { Statements } from "../../src/wallet/statements/Statements.ts"
import { TestData } from "../../src/wallet/TestData.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { failsWith, partnerClient } from "../support/PartnerClient.ts"
import { bearer, errorBody, validationErrors } from "../support/TestApp.ts"
import { givenPlayer, refund, walletAnswer, WalletApp, winBet } from "../support/WalletApp.ts"

const books = new PartnerBooks()

/** The partner guide's statement check, as a partner copies it: the ```js block that defines `statementVerified`. */
const readmeCheck = Effect.promise(async () => {
  const readme = readFileSync(
    new URL("../../docs/partner-guide/statements-and-reconciliation.md", import.meta.url),
    "utf8"
  )
  const code = /```js\n([^`]*statementVerified[^`]*)```/.exec(readme)?.[1]
  assert.isDefined(code, "the partner guide shows how to verify a statement")
  const file = path.join(tmpdir(), `statement-check-${process.pid}-${Date.now()}.mjs`)
  writeFileSync(file, code!)
  try {
    const module = await import(pathToFileURL(file).href) as {
      statementVerified: (secret: string, signature: string, rawBody: string | Buffer) => boolean
    }
    return module.statementVerified
  } finally {
    rmSync(file, { force: true })
  }
})

/** An answer's raw bytes and headers (the document is not JSON: the wire is the point). */
const rawGet = (url: string, headers: Record<string, string>) =>
  Effect.gen(function*() {
    const response = yield* (yield* HttpClient.HttpClient).execute(
      HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders(headers))
    )
    return { status: response.status, headers: response.headers, text: yield* response.text }
  }).pipe(Effect.orDie)

const rawPost = (url: string, headers: Record<string, string>, body: string, contentType = "application/x-ndjson") =>
  Effect.gen(function*() {
    const request = HttpClientRequest.post(url).pipe(
      HttpClientRequest.setHeaders(headers),
      HttpClientRequest.setBody(HttpBody.text(body, contentType))
    )
    const response = yield* (yield* HttpClient.HttpClient).execute(request)
    return { status: response.status, body: JSON.parse(yield* response.text) as unknown }
  }).pipe(Effect.orDie)

/** A partner whose live and test wallets are the fake, which holds both webhook secrets. */
const givenPartnerOfBothEnvironments = (name: string) =>
  Effect.gen(function*() {
    const fake = yield* FakeUpstream
    const created = yield* Effect.orDie(
      (yield* Partners).create({ name, callbackUrl: `${fake.url}/wallet`, testCallbackUrl: `${fake.url}/wallet` })
    )
    books.secrets.add(created.webhookSecret)
    books.secrets.add(created.test.webhookSecret)
    return created
  })

/** Closes the days that ended as if it were `at` (the statements' clock is a TestClock set there). */
const closeAt = (at: number) =>
  Effect.flatMap(
    Effect.service(Statements),
    (statements) =>
      Effect.flatMap(TestClock.setTime(at), () => statements.closeDays).pipe(Effect.provide(TestClock.layer()))
  )

/** The day's totals and transactions summed by SQL from the ledger, in minor units (every transaction here is BRL). */
const ledgerSums = (partnerId: number, environment: string, day: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [sums] = yield* sql<
      { bets: string; wins: string; refunds: string; rollbacks: string; net: string; n: number }
    >`
      SELECT COALESCE(sum(t.bet) FILTER (WHERE t.kind = 'bet' AND t.status = 'applied'), 0)::text AS bets,
             COALESCE(sum(t.win) FILTER (WHERE t.kind = 'bet' AND t.status = 'applied'), 0)::text AS wins,
             COALESCE(sum(t.amount) FILTER (WHERE t.kind = 'refund' AND t.status = 'applied'), 0)::text AS refunds,
             COALESCE(sum(t.bet) FILTER (WHERE t.kind = 'bet' AND t.status = 'refused' AND EXISTS (
               SELECT 1 FROM partner_callbacks c WHERE c.transaction_ref = t.id AND c.kind = 'rollback')), 0)::text AS rollbacks,
             COALESCE(sum(t.amount) FILTER (WHERE t.status = 'applied'), 0)::text AS net,
             count(*)::int AS n
      FROM wallet_transactions t
      WHERE t.partner_id = ${partnerId} AND t.environment = ${environment}
        AND t.created_at >= ${dayStart(day)} AND t.created_at < ${dayStart(nextDay(day))}
    `
    const ids = yield* sql<{ txn_id: string; kind: string }>`
      SELECT txn_id, kind FROM wallet_transactions
      WHERE partner_id = ${partnerId} AND environment = ${environment}
        AND created_at >= ${dayStart(day)} AND created_at < ${dayStart(nextDay(day))}
      ORDER BY created_at, id
    `
    return {
      totals: {
        bets: BigInt(sums.bets),
        wins: BigInt(sums.wins),
        refunds: BigInt(sums.refunds),
        rollbacks: BigInt(sums.rollbacks),
        net: BigInt(sums.net)
      },
      transactions: sums.n,
      ids: ids.map((row) => `${row.kind}:${row.txn_id}`)
    }
  }).pipe(Effect.orDie)

const Reconciliation = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    reconciled: Schema.Boolean,
    counts: Schema.Struct({
      ours: Schema.Number,
      theirs: Schema.Number,
      matched: Schema.Number,
      missing_at_partner: Schema.Number,
      missing_here: Schema.Number,
      different: Schema.Number
    }),
    totals: Schema.Array(Schema.Struct({
      field: Schema.String,
      currency: Schema.optionalKey(Schema.String),
      ours: Schema.Unknown,
      theirs: Schema.Unknown
    })),
    missing_at_partner: Schema.Array(Schema.Struct({ transaction_id: Schema.String, kind: Schema.String })),
    missing_here: Schema.Array(Schema.Struct({ transaction_id: Schema.String, kind: Schema.String })),
    different: Schema.Array(Schema.Struct({
      transaction_id: Schema.String,
      differences: Schema.Array(Schema.Struct({
        field: Schema.String,
        currency: Schema.optionalKey(Schema.String),
        ours: Schema.Unknown,
        theirs: Schema.Unknown
      }))
    }))
  })
})
const reconciliationOf = Schema.decodeUnknownSync(Reconciliation)

// CurrencyConfig: the app needs it since issue 33, and TestConfig does not give it yet.
layer(WalletApp(books), live)("daily statements", (it) => {
  it.effect(
    "a day closed once, equal to the ledger, signed, read by each environment's token, and reconciled",
    () =>
      Effect.gen(function*() {
        const acme = yield* givenPartnerOfBothEnvironments("Statement Bets")
        const quiet = yield* givenPartnerOfBothEnvironments("Quiet Bets")
        const ana = yield* givenPlayer(books, acme.partner.id, "st-ana", 100)
        const bo = yield* givenPlayer(books, acme.partner.id, "st-bo-test", 50, "test")

        assert.strictEqual(walletAnswer(yield* winBet(ana.internalUserId, "st-1", { bet: 10, win: 4.5 })).msg, "")
        assert.strictEqual(
          walletAnswer(yield* winBet(ana.internalUserId, "st-2", { bet: 5, win: 0 }, "st-round-2")).msg,
          ""
        )
        assert.strictEqual(walletAnswer(yield* refund(ana.internalUserId, "st-refund-2", "st-round-2")).msg, "")
        books.behaviour = "down"
        const refused = walletAnswer(
          yield* winBet(ana.internalUserId, "st-3", { bet: 2, win: 0 }).pipe(
            Effect.ensuring(Effect.sync(() => (books.behaviour = "fine")))
          )
        )
        assert.strictEqual(refused.msg, "INSUFFICIENT_USER_FUNDS")
        assert.strictEqual(walletAnswer(yield* winBet(ana.internalUserId, "st-4", { bet: 1.25, win: 3 })).msg, "")
        assert.strictEqual(
          walletAnswer(yield* winBet(bo.internalUserId, "st-test-1", { bet: 3, win: 1 }, "st-test-1", "test")).msg,
          ""
        )

        const day = dayOf(Date.now())
        const tomorrow = dayStart(nextDay(day)).getTime() + 5 * 60_000

        // A bet of the day still pending holds the day back.
        const repo = yield* WalletRepo
        const opened = yield* repo.openBet({
          aggregator: "sandbox",
          kind: "bet",
          txnId: "st-pending",
          fingerprint: "st-pending",
          partnerId: acme.partner.id,
          environment: "live",
          playerId: ana.id,
          roundId: "st-pending",
          debitTxnId: null,
          gameCode: "ag-hidden-fortune",
          providerCode: "aurora-gaming",
          currency: "BRL",
          bet: 100n,
          win: 0n
        }, ana).pipe(Effect.orDie)
        assert.strictEqual(opened._tag, "Opened")
        const sql = yield* SqlClient.SqlClient
        const written = sql<{ partner: number; environment: string }>`
        SELECT partner_id::int AS partner, environment FROM wallet_statements WHERE day = ${day}::date ORDER BY 1, 2
      `.pipe(Effect.orDie)
        assert.deepStrictEqual(yield* closeAt(tomorrow), [day])
        assert.deepStrictEqual(
          (yield* written).map((row) => [row.partner, row.environment]),
          [[acme.partner.id, "test"], [quiet.partner.id, "live"], [quiet.partner.id, "test"]],
          "every statement but the one whose bet is pending"
        )
        if (opened._tag === "Opened") {
          const player = Option.getOrThrow(yield* (yield* PartnerPlayers).findById(ana.id))
          const { callbacks, outcome } = betSettlement(player, acme.partner.slug, betOf(opened.transaction), {
            _tag: "Unavailable",
            reason: "recovered by the test"
          }, new Date())
          yield* repo.settleBet(opened.transaction, outcome, callbacks)
        }

        // Two closes at once (two instances of the fleet): the statement is written once, and the day is complete.
        const [first, second] = yield* Effect.all([closeAt(tomorrow), closeAt(tomorrow)], { concurrency: 2 })
        assert.deepStrictEqual([...first, ...second], [day], "written once")
        assert.strictEqual((yield* written).length, 4)
        assert.deepStrictEqual(yield* closeAt(tomorrow), [], "nothing left to write")

        // The statement equals the ledger summed by SQL, transaction by transaction.
        const client = yield* partnerClient(acme.token)
        const read = yield* client.statements.statement({ params: { date: day }, query: { per_page: 200 } })
        if (!("data" in read)) return assert.fail("a JSON statement")
        const statement = read.data
        const sums = yield* ledgerSums(acme.partner.id, "live", day)
        assert.deepStrictEqual(sums.totals, { bets: 1625n, wins: 750n, refunds: 500n, rollbacks: 300n, net: -375n })
        // One currency that day: its totals, in its units, are the ledger's sums.
        assert.deepStrictEqual(statement.statement.currencies.map((entry) => [entry.currency, entry.totals]), [
          ["BRL", { bets: 16.25, wins: 7.5, refunds: 5, rollbacks: 3, net: -3.75 }]
        ])
        assert.deepStrictEqual(statement.statement.currencies[0]!.counts, statement.statement.counts)
        assert.strictEqual(statement.statement.counts.transactions, sums.transactions)
        assert.deepStrictEqual(statement.statement.counts, {
          transactions: 6,
          bets: 3,
          refused_bets: 2,
          wins: 2,
          refunds: 1,
          rollbacks: 2
        })
        assert.deepStrictEqual(statement.transactions.map((line) => `${line.kind}:${line.transaction_id}`), sums.ids)
        assert.deepInclude(statement.transactions.find((line) => line.transaction_id === "st-3")!, {
          status: "refused",
          refusal: "INSUFFICIENT_USER_FUNDS",
          rolled_back: true,
          external_player_id: "st-ana",
          currency: "BRL",
          bet: 2,
          amount: 0
        })
        assert.strictEqual(statement.statement.environment, "live")
        assert.notInclude(
          statement.transactions.map((line) => line.transaction_id),
          "st-test-1",
          "never a test transaction"
        )

        // The document itself, signed: the partner guide's check accepts it with the live webhook secret, and nothing else.
        const verified = yield* readmeCheck
        const url = `/api/partner/v1/wallet/statements/${day}`
        const document = yield* rawGet(`${url}?format=jsonl`, bearer(acme.token))
        assert.strictEqual(document.status, 200)
        assert.match(document.headers["content-type"] ?? "", /^application\/x-ndjson/)
        const signature = document.headers["x-statement-signature"]!
        assert.isTrue(
          verified(acme.webhookSecret, signature, document.text),
          "the partner guide's check verifies the live statement"
        )
        assert.isTrue(verified(acme.webhookSecret, signature, Buffer.from(document.text)), "over the raw bytes too")
        assert.isFalse(verified(acme.test.webhookSecret, signature, document.text), "not with the test secret")
        assert.isFalse(
          verified(acme.webhookSecret, signature, document.text.replace("st-1", "st-9")),
          "not once changed"
        )
        assert.strictEqual(statement.signature, signature)
        const byAccept = yield* rawGet(url, { ...bearer(acme.token), accept: "application/x-ndjson" })
        assert.strictEqual(byAccept.text, document.text, "Accept asks for the same document")
        const lines = document.text.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
        assert.deepInclude(lines[0], {
          record: "statement",
          partner: acme.partner.slug,
          environment: "live",
          date: day
        })
        assert.strictEqual(lines.length, 1 + sums.transactions)
        assert.strictEqual(document.headers["x-statement-sha256"], statement.document.sha256)

        // A test token reads the test statement, signed with the test secret.
        const testClient = yield* partnerClient(acme.test.token)
        const testRead = yield* testClient.statements.statement({ params: { date: day }, query: {} })
        if (!("data" in testRead)) return assert.fail("a JSON statement")
        assert.deepStrictEqual(testRead.data.transactions.map((line) => line.transaction_id), ["st-test-1"])
        assert.deepStrictEqual(testRead.data.statement.currencies.map((entry) => [entry.currency, entry.totals]), [
          ["BRL", { bets: 3, wins: 1, refunds: 0, rollbacks: 0, net: -2 }]
        ])
        const testDocument = yield* rawGet(`${url}?format=jsonl`, bearer(acme.test.token))
        assert.isTrue(
          verified(acme.test.webhookSecret, testDocument.headers["x-statement-signature"]!, testDocument.text)
        )

        // A day without activity: an empty statement, signed the same way. A day not ended, or before the
        // partner's account: 404 saying why.
        const quietRead = yield* (yield* partnerClient(quiet.token)).statements.statement({
          params: { date: day },
          query: {}
        })
        if (!("data" in quietRead)) return assert.fail("a JSON statement")
        assert.deepStrictEqual(quietRead.data.statement.currencies, [], "no activity: no currency")
        assert.deepStrictEqual(quietRead.data.transactions, [])
        const quietDocument = yield* rawGet(`${url}?format=jsonl`, bearer(quiet.token))
        assert.isTrue(
          verified(quiet.webhookSecret, quietDocument.headers["x-statement-signature"]!, quietDocument.text)
        )
        const notEnded = yield* client.statements.statement({ params: { date: nextDay(day) }, query: {} }).pipe(
          failsWith(NotFound)
        )
        assert.include(notEnded.message, "has not ended yet")
        const before = yield* client.statements.statement({ params: { date: previousDay(day) }, query: {} }).pipe(
          failsWith(NotFound)
        )
        assert.include(before.message, "the partner's account was created after it")
        const badDate = yield* rawGet(`/api/partner/v1/wallet/statements/2026-02-30`, bearer(acme.token))
        assert.strictEqual(badDate.status, 422)
        assert.deepStrictEqual(validationErrors({ body: JSON.parse(badDate.text) }), {
          date: ["The date field must be a date (YYYY-MM-DD)."]
        })

        // Reconciliation: the partner's own books, posted as JSON lines (here the statement's own lines, edited).
        const reconcile = (body: string) => rawPost(`${url}/reconciliation`, bearer(acme.token), body)
        const same = reconciliationOf((yield* reconcile(document.text)).body).data
        assert.isTrue(same.reconciled, "the statement itself reconciles")
        assert.strictEqual(same.counts.matched, sums.transactions)
        const edited = lines.filter((line) => line.transaction_id !== "st-4").map((line) =>
          line.transaction_id === "st-1" ? { ...line, amount: -6 } : line
        )
        const theirs = [
          { record: "statement", totals: { net: -2.5 } },
          ...edited.slice(1),
          { transaction_id: "st-unknown", kind: "bet", amount: -1 }
        ].map((line) => JSON.stringify(line)).join("\n")
        const found = reconciliationOf((yield* reconcile(theirs)).body).data
        assert.isFalse(found.reconciled)
        assert.deepStrictEqual(
          found.missing_at_partner.map((line) => line.transaction_id),
          ["st-4"],
          "the transaction the partner left out"
        )
        assert.deepStrictEqual(found.missing_here.map((line) => line.transaction_id), ["st-unknown"])
        assert.deepStrictEqual(found.different.map((line) => [line.transaction_id, line.differences]), [
          ["st-1", [{ field: "amount", currency: "BRL", ours: -5.5, theirs: -6 }]]
        ])
        // Totals without a currency are the day's one currency's.
        assert.deepStrictEqual(found.totals, [{ field: "net", currency: "BRL", ours: -3.75, theirs: -2.5 }])
        const perCurrency = reconciliationOf(
          (yield* reconcile(JSON.stringify({
            record: "statement",
            currencies: [{ currency: "BRL", totals: { net: "-3.75", bets: 16.25 } }, {
              currency: "JPY",
              totals: { net: 0 }
            }]
          }))).body
        ).data
        assert.deepStrictEqual(perCurrency.totals, [], "BRL's as ours, and JPY had nothing that day")
        assert.deepInclude(found.counts, { ours: 6, theirs: 6, missing_at_partner: 1, missing_here: 1, different: 1 })

        // What cannot be read is named by its line; a transaction listed twice too.
        const broken = yield* reconcile(
          `{"transaction_id": "st-1", "amount": -5.5}\n{"transaction_id": "st-2", "amount": "1e2"}`
        )
        assert.strictEqual(broken.status, 422)
        assert.match(errorBody(broken).errors!.body[0], /^Line 2: amount: The amount field must be an amount/)
        // An amount finer than its currency, or a currency this service does not know: the line and the field.
        const finer = yield* reconcile(`{"transaction_id": "st-1", "currency": "BRL", "amount": "-5.505"}`)
        assert.deepStrictEqual([finer.status, errorBody(finer).errors], [422, {
          body: ["Line 1: amount: The amount field must be an amount in BRL, with at most 2 decimal places."]
        }])
        const unknown = yield* reconcile(
          `{"transaction_id": "st-1"}\n{"record": "statement", "currencies": [{"currency": "XYZ", "totals": {"net": 1}}]}`
        )
        assert.deepStrictEqual([unknown.status, errorBody(unknown).errors], [422, {
          body: [
            "Line 2: currencies.0.currency: The currencies.0.currency field must be a currency this service knows (like BRL, JPY or BTC)."
          ]
        }])
        const twice = yield* reconcile(`{"transaction_id": "st-1"}\n{"transaction_id": "st-1", "kind": "bet"}`)
        assert.deepStrictEqual(errorBody(twice).errors, {
          body: ["Line 2: the bet st-1 was already listed on line 1."]
        })
        // Clearing the test data deletes the test statement; the day then says why it has none.
        assert.strictEqual((yield* (yield* TestData).clear(acme.partner.id)).statements, 1)
        const cleared = yield* testClient.statements.statement({ params: { date: day }, query: {} }).pipe(
          failsWith(NotFound)
        )
        assert.include(cleared.message, "its test data was cleared")
        assert.isTrue(
          "data" in (yield* client.statements.statement({ params: { date: day }, query: {} })),
          "the live one is untouched"
        )

        const notLines = yield* rawPost(`${url}/reconciliation`, bearer(acme.token), "{}", "application/json")
        assert.deepStrictEqual([notLines.status, errorBody(notLines).errors], [422, {
          body: ["The request body must be sent with Content-Type: application/x-ndjson or application/jsonl."]
        }])
      }),
    { timeout: 60_000 }
  )
})
