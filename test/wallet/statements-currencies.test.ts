/**
 * A statement of several currencies through the partner API, in memory: ledger rows at scales 0 (JPY), 2 (BRL),
 * 3 (KWD) and 8 (BTC) become the document's lines in their units, come back from the API unchanged, and reconcile
 * exactly when the partner posts them back; the totals stay one per currency. The Statements service is stood in for
 * by the stored statement and the domain's reconcile (what the service's own reconcile runs).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { HttpServer } from "effect/http"
import { HttpApiTest } from "effect/http-api"
import { PartnerApi } from "../../src/api/Api.ts"
import type { PostedRecord } from "../../src/api/Statements.ts"
import type { WalletTransaction } from "../../src/domain/Wallet.ts"
import { type StatementLine, statementLine } from "../../src/domain/Statements.ts"
import { computeStatement, linesOf } from "../../src/domain/StatementDocument.ts"
import { reconcile } from "../../src/domain/StatementReconciliation.ts"
import * as PartnerAuthMiddleware from "../../src/partners/PartnerAuth.ts"
import { RequestValidationLive } from "../../src/routes.ts"
import { StatementsHandlers } from "../../src/wallet/statements/http.ts"
import { Statements } from "../../src/wallet/statements/Statements.ts"
import { asPartner, MemoryServices } from "../support/MemoryPartnerApi.ts"
import { SpecUpstreams } from "../support/SpecUpstreams.ts"
import { givenPartner } from "../support/TestApp.ts"

const day = "2026-11-22"
const at = new Date("2026-11-22T13:00:00.000Z")

/** Ledger rows of one day: a bet of each scale, the extremes of BTC among them. */
const rows = [
  { txnId: "jpy-1", currency: "JPY", bet: 1_000_000_000_000n, win: 1n },
  { txnId: "brl-1", currency: "BRL", bet: 1n, win: 1_000n },
  { txnId: "kwd-1", currency: "KWD", bet: 1_001n, win: 0n },
  { txnId: "btc-1", currency: "BTC", bet: 1n, win: 0n },
  { txnId: "btc-2", currency: "BTC", bet: 2_100_000_000_000_000n, win: 2_100_000_000_000_000n },
  { txnId: "brl-2", currency: "BRL", bet: 99n, win: 0n }
].map((row, index): StatementLine => {
  const createdAt = new Date(at.getTime() + index)
  /** A settled, applied bet of the ledger, in its player's currency. */
  const transaction: WalletTransaction = {
    ref: index + 1,
    kind: "bet",
    txnId: row.txnId,
    fingerprint: null,
    partnerId: 3,
    environment: "live",
    aggregator: "sandbox",
    playerId: 7,
    roundRef: index + 1,
    roundId: row.txnId,
    debitTxnId: null,
    gameCode: "g",
    providerCode: "p",
    currency: row.currency,
    bet: row.bet,
    win: row.win,
    status: "applied",
    refusal: null,
    note: null,
    amount: row.win - row.bet,
    balanceAfter: null,
    answer: null,
    createdAt,
    settledAt: createdAt,
    ageMillis: 0
  }
  return statementLine(transaction, "ana", false)
})

const computed = computeStatement({ partner: "acme", environment: "live", date: day, computedAt: at }, rows)
const read = {
  summary: computed.summary,
  document: computed.document,
  sha256: computed.sha256,
  legacyCurrency: undefined
}

const StatementsStub = Layer.succeed(
  Statements,
  Statements.of({
    closeDays: Effect.succeed([]),
    closeSoFar: () => Effect.succeed({ day: "2026-11-22", statement: { ...read, signature: "v1=stub" } }),
    read: () => Effect.succeed(read),
    signature: () => Effect.succeed("v1=stub"),
    readSigned: () => Effect.succeed({ ...read, signature: "v1=stub" }),
    reconcile: (partner, date, statement, theirs) =>
      Effect.succeed({
        day: date,
        environment: partner.environment,
        summary: statement.summary,
        posted: theirs.lines.length,
        reconciliation: reconcile({
          lines: linesOf(statement.document),
          currencies: statement.summary.currencies,
          transactions: statement.summary.counts.transactions
        }, theirs)
      }),
    recent: () => Effect.succeed([])
  })
)

const MemoryStatementsApi = StatementsHandlers.pipe(
  Layer.provideMerge(Layer.mergeAll(PartnerAuthMiddleware.layer, SpecUpstreams, RequestValidationLive)),
  Layer.provideMerge(StatementsStub),
  Layer.provideMerge(MemoryServices()),
  // The casino's services in MemoryServices ask CurrencyConfig since issue 33; TestConfig does not give it yet.
  Layer.provideMerge(HttpServer.layerServices)
)

const clientOf = (token: string) =>
  HttpApiTest.groups(PartnerApi, ["statements"]).pipe(Effect.provide(asPartner(token)))

layer(MemoryStatementsApi)("statements of several currencies, in memory", (it) => {
  it.effect("amounts at scales 0, 2, 3 and 8 round-trip exactly from ledger rows to the document and back through reconciliation", () =>
    Effect.gen(function*() {
      const acme = yield* givenPartner({ name: "Currencies Bets" })
      const client = yield* clientOf(acme.token)
      const answer = yield* client.statements.statement({ params: { date: day }, query: { per_page: 50 } })
      if (!("data" in answer)) return assert.fail("a JSON statement")
      const { statement, transactions } = answer.data
      assert.deepStrictEqual(
        transactions.map((line) => [line.transaction_id, line.currency, line.bet, line.win, line.amount]),
        [
          ["jpy-1", "JPY", 1_000_000_000_000, 1, -999_999_999_999],
          ["brl-1", "BRL", 0.01, 10, 9.99],
          ["kwd-1", "KWD", 1.001, 0, -1.001],
          ["btc-1", "BTC", "0.00000001", "0.00000000", "-0.00000001"],
          ["btc-2", "BTC", "21000000.00000000", "21000000.00000000", "0.00000000"],
          ["brl-2", "BRL", 0.99, 0, -0.99]
        ]
      )
      // Four totals, one per currency, never mixed.
      assert.deepStrictEqual(
        statement.currencies.map((
          entry
        ) => [entry.currency, entry.totals.bets, entry.totals.net, entry.counts.transactions]),
        [
          ["BRL", 1, 9, 2],
          ["BTC", "21000000.00000001", "-0.00000001", 2],
          ["JPY", 1_000_000_000_000, -999_999_999_999, 1],
          ["KWD", 1.001, -1.001, 1]
        ]
      )
      assert.strictEqual(statement.counts.transactions, 6)

      // The partner posts back what it read (the summary and every line): everything matches, exactly. The typed
      // client takes amounts as the text it sends (a JSON number's text is what the service reads of it).
      const amountFields = new Set(["bet", "win", "amount", "bets", "wins", "refunds", "rollbacks", "net"])
      const asText = (value: unknown): unknown =>
        Array.isArray(value)
          ? value.map(asText)
          : typeof value === "object" && value !== null
          ? Object.fromEntries(
            Object.entries(value).map(([key, field]) => [
              key,
              amountFields.has(key) && typeof field === "number" ? String(field) : asText(field)
            ])
          )
          : value
      const post = (records: ReadonlyArray<unknown>) =>
        client.statements.reconcile({
          params: { date: day },
          payload: Stream.fromIterable(records.map(asText) as ReadonlyArray<typeof PostedRecord.Type>)
        })
      const back = yield* post([statement, ...transactions])
      assert.isTrue(back.data.reconciled)
      assert.deepInclude(back.data.counts, { matched: 6, different: 0, missing_here: 0, missing_at_partner: 0 })

      // One satoshi off in BTC, one yen off in JPY: each a difference of its own currency, in its units.
      const off = yield* post([
        {
          record: "statement",
          currencies: [{ currency: "BTC", totals: { net: "0.00000000" } }, {
            currency: "JPY",
            totals: { bets: 999_999_999_999 }
          }]
        },
        { transaction_id: "btc-1", currency: "BTC", amount: "-0.00000002" },
        { transaction_id: "jpy-1", amount: -1_000_000_000_000 }
      ])
      assert.deepStrictEqual(off.data.totals, [
        { field: "net", currency: "BTC", ours: "-0.00000001", theirs: "0.00000000" },
        { field: "bets", currency: "JPY", ours: 1_000_000_000_000, theirs: 999_999_999_999 }
      ])
      assert.deepStrictEqual(off.data.different.map((line) => [line.transaction_id, line.differences]), [
        ["jpy-1", [{ field: "amount", currency: "JPY", ours: -999_999_999_999, theirs: -1_000_000_000_000 }]],
        ["btc-1", [{ field: "amount", currency: "BTC", ours: "-0.00000001", theirs: "-0.00000002" }]]
      ])
    }))
})
