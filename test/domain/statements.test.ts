/**
 * The pure rules behind statements and the RTP policy: days, totals, the document's form (what is signed),
 * reading it back a page at a time, reconciliation field by field, and what a launch's user_rtp becomes.
 */
import { assert, describe, it } from "@effect/vitest"
import { appliedRtp, parseRtpPolicy, rtpPolicyText } from "../../src/domain/RtpPolicy.ts"
import { dayOf, isDay, nextDay, previousDay, type StatementLine, totalsOf } from "../../src/domain/Statements.ts"
import { computeStatement, linesOf, summaryOf } from "../../src/domain/StatementDocument.ts"
import { reconcile } from "../../src/domain/StatementReconciliation.ts"

const line = (overrides: Partial<StatementLine> & Pick<StatementLine, "txnId">): StatementLine => ({
  kind: "bet",
  status: "applied",
  refusal: null,
  note: null,
  rolledBack: false,
  externalPlayerId: "ana",
  roundId: overrides.txnId,
  gameCode: "g",
  providerCode: "p",
  currency: "BRL",
  bet: 1000n,
  win: 450n,
  amount: -550n,
  createdAt: new Date("2026-11-22T10:00:00.000Z"),
  settledAt: new Date("2026-11-22T10:00:00.100Z"),
  ...overrides
})

const day = [
  line({ txnId: "b1" }),
  line({ txnId: "b2", bet: 500n, win: 0n, amount: -500n }),
  line({ txnId: "r2", kind: "refund", roundId: "b2", bet: 0n, win: 0n, amount: 500n }),
  line({
    txnId: "b3",
    status: "refused",
    refusal: "INSUFFICIENT_USER_FUNDS",
    rolledBack: true,
    bet: 200n,
    win: 0n,
    amount: 0n
  }),
  line({ txnId: "b4", status: "refused", refusal: "INSUFFICIENT_USER_FUNDS", bet: 300n, win: 0n, amount: 0n })
]

const header = {
  partner: "acme",
  environment: "live",
  date: "2026-11-22",
  computedAt: new Date("2026-11-23T00:01:00Z")
} as const

/** A day of three currencies: BRL (2 decimals), JPY (0) and BTC (8). */
const mixed = [
  line({ txnId: "brl-1", currency: "BRL", bet: 1050n, win: 0n, amount: -1050n }),
  line({ txnId: "jpy-1", currency: "JPY", bet: 500n, win: 1200n, amount: 700n }),
  line({ txnId: "btc-1", currency: "BTC", bet: 1n, win: 0n, amount: -1n }),
  line({ txnId: "btc-2", currency: "BTC", bet: 2_100_000_000_000_000n, win: 2_100_000_000_000_000n, amount: 0n }),
  line({ txnId: "brl-2", currency: "BRL", bet: 99n, win: 0n, amount: -99n })
]

describe("statements", () => {
  it("days are real UTC dates", () => {
    assert.isTrue(isDay("2026-11-22"))
    assert.isTrue(isDay("2028-02-29"))
    for (const bad of ["2026-02-30", "2026-13-01", "20261122", "2026-11-22T00:00:00Z", " 2026-11-22"]) {
      assert.isFalse(isDay(bad), bad)
    }
    // The service's days: from 2000 to 9999 (PostgreSQL has no year 0, and no statement predates the service).
    assert.isTrue(isDay("2000-01-01"))
    assert.isTrue(isDay("9999-12-31"))
    for (const outside of ["0000-01-01", "0001-01-01", "1999-12-31"]) assert.isFalse(isDay(outside), outside)
    assert.deepStrictEqual([nextDay("2026-12-31"), previousDay("2026-03-01")], ["2027-01-01", "2026-02-28"])
    assert.strictEqual(dayOf(new Date("2026-11-22T23:59:59.999Z")), "2026-11-22")
  })

  it("totals: bets and wins applied, refunds given back, rollbacks owed back, net the sum of applied amounts", () => {
    const counts = { transactions: 5, bets: 2, refusedBets: 2, wins: 1, refunds: 1, rollbacks: 1 }
    assert.deepStrictEqual(totalsOf(day), {
      counts,
      currencies: [{
        currency: "BRL",
        totals: { bets: 1500n, wins: 450n, refunds: 500n, rollbacks: 200n, net: -550n },
        counts
      }]
    })
  })

  it("totals of the ledger's other events: a credit is a win, a debit's rollback gives back as a refund does", () => {
    const events = [
      line({ txnId: "d1", win: 0n, amount: -1000n }),
      line({ txnId: "c1", kind: "credit", roundId: "d1", bet: 0n, win: 700n, amount: 700n }),
      line({ txnId: "x1", kind: "rollback", roundId: "d1", bet: 0n, win: 0n, amount: 1000n })
    ]
    assert.deepStrictEqual(totalsOf(events).currencies, [{
      currency: "BRL",
      totals: { bets: 1000n, wins: 700n, refunds: 1000n, rollbacks: 0n, net: 700n },
      counts: { transactions: 3, bets: 1, refusedBets: 0, wins: 1, refunds: 1, rollbacks: 0 }
    }])
  })

  it("a day of BRL, JPY and BTC has three totals, each its own currency's, never mixed", () => {
    const { counts, currencies } = totalsOf(mixed)
    assert.strictEqual(counts.transactions, 5)
    assert.deepStrictEqual(currencies.map((entry) => [entry.currency, entry.totals, entry.counts.transactions]), [
      ["BRL", { bets: 1149n, wins: 0n, refunds: 0n, rollbacks: 0n, net: -1149n }, 2],
      ["BTC", { bets: 2_100_000_000_000_001n, wins: 2_100_000_000_000_000n, refunds: 0n, rollbacks: 0n, net: -1n }, 2],
      ["JPY", { bets: 500n, wins: 1200n, refunds: 0n, rollbacks: 0n, net: 700n }, 1]
    ])
    const summary = JSON.parse(computeStatement(header, mixed).document.split("\n")[0]!)
    assert.deepStrictEqual(
      summary.currencies.map((entry: { currency: string; totals: unknown }) => [entry.currency, entry.totals]),
      [
        ["BRL", { bets: 11.49, wins: 0, refunds: 0, rollbacks: 0, net: -11.49 }],
        ["BTC", {
          bets: "21000000.00000001",
          wins: "21000000.00000000",
          refunds: "0.00000000",
          rollbacks: "0.00000000",
          net: "-0.00000001"
        }],
        ["JPY", { bets: 500, wins: 1200, refunds: 0, rollbacks: 0, net: 700 }]
      ]
    )
  })

  it("amounts at scales 0, 2, 3 and 8 are written in their units and read back exactly", () => {
    const scaled = [
      line({ txnId: "jpy", currency: "JPY", bet: 1_000_000_000_000n, win: 1n, amount: -999_999_999_999n }),
      line({ txnId: "eur", currency: "EUR", bet: 1n, win: 100_000_000_000_000n, amount: 99_999_999_999_999n }),
      line({ txnId: "kwd", currency: "KWD", bet: 1001n, win: 1n, amount: -1000n }),
      line({ txnId: "btc", currency: "BTC", bet: 1n, win: 2_100_000_000_000_000n, amount: 2_099_999_999_999_999n })
    ]
    const computed = computeStatement(header, scaled)
    const written = computed.document.split("\n").slice(1, -1).map((text) => JSON.parse(text))
    assert.deepStrictEqual(written.map((l) => [l.currency, l.bet, l.win, l.amount]), [
      ["JPY", 1_000_000_000_000, 1, -999_999_999_999],
      ["EUR", 0.01, 1_000_000_000_000, 999_999_999_999.99],
      ["KWD", 1.001, 0.001, -1],
      ["BTC", "0.00000001", "21000000.00000000", "20999999.99999999"]
    ])
    assert.deepStrictEqual(linesOf(computed.document), scaled)
    assert.deepStrictEqual(summaryOf(computed.document), computed.summary)
  })

  it("the document: a summary line, then a line per transaction, each ending in a newline; read back page by page", () => {
    const computed = computeStatement(header, day)
    const lines = computed.document.split("\n")
    assert.strictEqual(lines.length, day.length + 2, "every line ends with a newline")
    assert.strictEqual(lines.at(-1), "")
    assert.strictEqual(
      lines[0],
      "{\"record\":\"statement\",\"partner\":\"acme\",\"environment\":\"live\",\"date\":\"2026-11-22\",\"from\":\"2026-11-22T00:00:00.000Z\"," +
        "\"to\":\"2026-11-23T00:00:00.000Z\",\"computed_at\":\"2026-11-23T00:01:00.000Z\"," +
        "\"counts\":{\"transactions\":5,\"bets\":2,\"refused_bets\":2,\"wins\":1,\"refunds\":1,\"rollbacks\":1}," +
        "\"currencies\":[{\"currency\":\"BRL\",\"totals\":{\"bets\":15,\"wins\":4.5,\"refunds\":5,\"rollbacks\":2,\"net\":-5.5}," +
        "\"counts\":{\"transactions\":5,\"bets\":2,\"refused_bets\":2,\"wins\":1,\"refunds\":1,\"rollbacks\":1}}]}"
    )
    assert.deepStrictEqual(JSON.parse(lines[4]!), {
      record: "transaction",
      transaction_id: "b3",
      kind: "bet",
      status: "refused",
      refusal: "INSUFFICIENT_USER_FUNDS",
      note: null,
      rolled_back: true,
      external_player_id: "ana",
      round_id: "b3",
      game_code: "g",
      provider_code: "p",
      currency: "BRL",
      bet: 2,
      win: 0,
      amount: 0,
      created_at: "2026-11-22T10:00:00.000Z",
      settled_at: "2026-11-22T10:00:00.100Z"
    })
    assert.deepStrictEqual(summaryOf(computed.document), computed.summary)
    assert.deepStrictEqual(linesOf(computed.document).map((l) => l.txnId), ["b1", "b2", "r2", "b3", "b4"])
    assert.deepStrictEqual(linesOf(computed.document, 2, 2).map((l) => l.txnId), ["r2", "b3"])
    assert.deepStrictEqual(linesOf(computed.document, 4, 50), [day[4]])
    const empty = computeStatement({ ...header, environment: "test" }, [])
    assert.deepStrictEqual([empty.document.split("\n").length, linesOf(empty.document)], [2, []])
    assert.deepStrictEqual(JSON.parse(empty.document.split("\n")[0]!).currencies, [], "no activity: no currency")
  })

  it("a document written before currencies is read as it is, in the currency its stored totals name", () => {
    const old = "{\"record\":\"statement\",\"partner\":\"acme\",\"environment\":\"live\",\"date\":\"2026-11-22\"," +
      "\"from\":\"2026-11-22T00:00:00.000Z\",\"to\":\"2026-11-23T00:00:00.000Z\",\"computed_at\":\"2026-11-23T00:01:00.000Z\"," +
      "\"totals\":{\"bets\":10,\"wins\":4.5,\"refunds\":0,\"rollbacks\":0,\"net\":-5.5}," +
      "\"counts\":{\"transactions\":1,\"bets\":1,\"refused_bets\":0,\"wins\":1,\"refunds\":0,\"rollbacks\":0}}\n" +
      "{\"record\":\"transaction\",\"transaction_id\":\"b1\",\"kind\":\"bet\",\"status\":\"applied\",\"refusal\":null," +
      "\"note\":null,\"rolled_back\":false,\"external_player_id\":\"ana\",\"round_id\":\"b1\",\"game_code\":\"g\"," +
      "\"provider_code\":\"p\",\"bet\":10,\"win\":4.5,\"amount\":-5.5,\"created_at\":\"2026-11-22T10:00:00.000Z\"," +
      "\"settled_at\":\"2026-11-22T10:00:00.100Z\"}\n"
    assert.deepStrictEqual(summaryOf(old, "BRL").currencies, [{
      currency: "BRL",
      totals: { bets: 1000n, wins: 450n, refunds: 0n, rollbacks: 0n, net: -550n },
      counts: { transactions: 1, bets: 1, refusedBets: 0, wins: 1, refunds: 0, rollbacks: 0 }
    }])
    assert.deepStrictEqual(linesOf(old, 0, 10, "BRL"), [line({ txnId: "b1" })])
  })

  it("reconciliation: by kind and id; applied ones missing at the partner, unknown ones, differing fields, differing totals", () => {
    const { currencies } = totalsOf(day)
    const result = reconcile({ lines: day, currencies, transactions: day.length }, {
      lines: [
        { txnId: "b1", kind: "bet", amount: -550n, bet: 1000n },
        { txnId: "b2", kind: "bet", amount: -600n, externalPlayerId: "bo" },
        { txnId: "b2", kind: "refund", amount: 500n },
        { txnId: "b4", kind: "bet", status: "applied", amount: -300n },
        { txnId: "zz", kind: "bet", amount: -1n }
      ],
      totals: { transactions: 5, currencies: new Map([["BRL", { net: -550n, bets: 1600n }]]) }
    })
    assert.strictEqual(result.matched, 1)
    assert.deepStrictEqual(
      result.missingAtPartner.map((l) => l.txnId),
      ["r2"],
      "the refund; refused b3 need not be there"
    )
    assert.deepStrictEqual(
      result.missingHere.map((l) => `${l.kind}:${l.txnId}`),
      ["refund:b2", "bet:zz"],
      "a refund is not its bet"
    )
    assert.deepStrictEqual(result.different.map((d) => [d.line.txnId, d.differences]), [
      ["b2", [{ field: "amount", currency: "BRL", ours: -500n, theirs: -600n }, {
        field: "external_player_id",
        ours: "ana",
        theirs: "bo"
      }]],
      ["b4", [{ field: "status", ours: "refused", theirs: "applied" }, {
        field: "amount",
        currency: "BRL",
        ours: 0n,
        theirs: -300n
      }]]
    ])
    assert.deepStrictEqual(result.totals, [{ field: "bets", currency: "BRL", ours: 1500n, theirs: 1600n }])
    const clean = reconcile({ lines: day, currencies, transactions: 5 }, {
      lines: day.map((l) => ({ txnId: l.txnId, kind: l.kind, amount: l.amount }))
    })
    assert.deepStrictEqual([clean.matched, clean.missingAtPartner, clean.missingHere, clean.different, clean.totals], [
      5,
      [],
      [],
      [],
      []
    ])
  })

  it("reconciliation per currency: totals compared currency by currency, a line in another currency reported as such", () => {
    const { counts, currencies } = totalsOf(mixed)
    const result = reconcile({ lines: mixed, currencies, transactions: counts.transactions }, {
      lines: [
        { txnId: "jpy-1", kind: "bet", currency: "BRL", amount: 700n },
        { txnId: "btc-1", kind: "bet", currency: "BTC", amount: -1n, bet: 1n }
      ],
      totals: {
        currencies: new Map([
          ["BTC", { net: -1n, bets: 2_100_000_000_000_001n }],
          // The same number in another currency is another amount: BRL's net is -11.49, JPY's 700.
          ["JPY", { net: 700n, transactions: 2 }],
          ["EUR", { net: 0n, bets: 5n }]
        ])
      }
    })
    assert.deepStrictEqual(result.different.map((d) => [d.line.txnId, d.differences]), [
      ["jpy-1", [{ field: "currency", ours: "JPY", theirs: "BRL" }]]
    ])
    assert.deepStrictEqual(result.totals, [
      { field: "bets", currency: "EUR", ours: 0n, theirs: 5n },
      { field: "transactions", currency: "JPY", ours: 1, theirs: 2 }
    ])
  })
})

describe("the RTP policy", () => {
  it("pass, clamp and fixed, as a launch's user_rtp goes through them", () => {
    assert.deepStrictEqual([appliedRtp({ mode: "pass" }, 97), appliedRtp({ mode: "pass" }, null)], [97, null])
    const clamp = { mode: "clamp", min: 85, max: 96 } as const
    assert.deepStrictEqual([99, 80, 90, null].map((rtp) => appliedRtp(clamp, rtp)), [96, 85, 90, null])
    assert.deepStrictEqual([99, null].map((rtp) => appliedRtp({ mode: "fixed", value: 94 }, rtp)), [94, 94])
  })

  it("the CLI's words, read strictly", () => {
    assert.deepStrictEqual(parseRtpPolicy(" Clamp:85-96 "), { mode: "clamp", min: 85, max: 96 })
    assert.deepStrictEqual(parseRtpPolicy("fixed:0"), { mode: "fixed", value: 0 })
    assert.deepStrictEqual(parseRtpPolicy("PASS"), { mode: "pass" })
    for (const bad of ["clamp:96-85", "clamp:85-101", "fixed:1.5", "fixed:-1", "fixed", "clamp:85", "both"]) {
      assert.isUndefined(parseRtpPolicy(bad), bad)
    }
    assert.deepStrictEqual(["pass", "clamp:85-96", "fixed:94"].map((text) => rtpPolicyText(parseRtpPolicy(text)!)), [
      "pass",
      "clamp:85-96",
      "fixed:94"
    ])
  })
})
