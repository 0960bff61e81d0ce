/**
 * The pure rules behind statements and the RTP policy: days, totals, the document's form (what is signed),
 * reading it back a page at a time, reconciliation field by field, and what a launch's user_rtp becomes.
 */
import { assert, describe, it } from "@effect/vitest"
import { appliedRtp, parseRtpPolicy, rtpPolicyText } from "../../src/domain/RtpPolicy.ts"
import {
  computeStatement,
  dayOf,
  isDay,
  linesOf,
  nextDay,
  previousDay,
  reconcile,
  type StatementLine,
  summaryOf,
  totalsOf
} from "../../src/domain/Statements.ts"

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
    assert.deepStrictEqual(totalsOf(day), {
      totals: { bets: 1500n, wins: 450n, refunds: 500n, rollbacks: 200n, net: -550n },
      counts: { transactions: 5, bets: 2, refusedBets: 2, wins: 1, refunds: 1, rollbacks: 1 }
    })
  })

  it("totals of the ledger's other events: a credit is a win, a debit's rollback gives back as a refund does", () => {
    const events = [
      line({ txnId: "d1", win: 0n, amount: -1000n }),
      line({ txnId: "c1", kind: "credit", roundId: "d1", bet: 0n, win: 700n, amount: 700n }),
      line({ txnId: "x1", kind: "rollback", roundId: "d1", bet: 0n, win: 0n, amount: 1000n })
    ]
    assert.deepStrictEqual(totalsOf(events), {
      totals: { bets: 1000n, wins: 700n, refunds: 1000n, rollbacks: 0n, net: 700n },
      counts: { transactions: 3, bets: 1, refusedBets: 0, wins: 1, refunds: 1, rollbacks: 0 }
    })
  })

  it("the document: a summary line, then a line per transaction, each ending in a newline; read back page by page", () => {
    const computed = computeStatement({
      partner: "acme",
      environment: "live",
      date: "2026-11-22",
      computedAt: new Date("2026-11-23T00:01:00Z")
    }, day)
    const lines = computed.document.split("\n")
    assert.strictEqual(lines.length, day.length + 2, "every line ends with a newline")
    assert.strictEqual(lines.at(-1), "")
    assert.strictEqual(
      lines[0],
      "{\"record\":\"statement\",\"partner\":\"acme\",\"environment\":\"live\",\"date\":\"2026-11-22\",\"from\":\"2026-11-22T00:00:00.000Z\"," +
        "\"to\":\"2026-11-23T00:00:00.000Z\",\"computed_at\":\"2026-11-23T00:01:00.000Z\",\"totals\":{\"bets\":15,\"wins\":4.5,\"refunds\":5," +
        "\"rollbacks\":2,\"net\":-5.5},\"counts\":{\"transactions\":5,\"bets\":2,\"refused_bets\":2,\"wins\":1,\"refunds\":1,\"rollbacks\":1}}"
    )
    assert.deepStrictEqual(JSON.parse(lines[4]), {
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
      bet: 2,
      win: 0,
      amount: 0,
      created_at: "2026-11-22T10:00:00.000Z",
      settled_at: "2026-11-22T10:00:00.100Z"
    })
    assert.deepStrictEqual(summaryOf(computed.document), computed.summary)
    assert.deepStrictEqual(linesOf(computed.document).map((l) => l.txnId), ["b1", "b2", "r2", "b3", "b4"])
    assert.deepStrictEqual(linesOf(computed.document, 2, 2).map((l) => l.txnId), ["r2", "b3"])
    assert.deepStrictEqual(linesOf(computed.document, 4, 50).map((l) => ({ ...l })), [
      { ...day[4], record: "transaction" } as StatementLine
    ])
    const empty = computeStatement(
      { partner: "acme", environment: "test", date: "2026-11-22", computedAt: new Date() },
      []
    )
    assert.deepStrictEqual([empty.document.split("\n").length, linesOf(empty.document)], [2, []])
  })

  it("reconciliation: by kind and id; applied ones missing at the partner, unknown ones, differing fields, differing totals", () => {
    const { totals } = totalsOf(day)
    const result = reconcile({ lines: day, totals, transactions: day.length }, {
      lines: [
        { txnId: "b1", kind: "bet", amount: -550n, bet: 1000n },
        { txnId: "b2", kind: "bet", amount: -600n, externalPlayerId: "bo" },
        { txnId: "b2", kind: "refund", amount: 500n },
        { txnId: "b4", kind: "bet", status: "applied", amount: -300n },
        { txnId: "zz", kind: "bet", amount: -1n }
      ],
      totals: { net: -550n, bets: 1600n, transactions: 5 }
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
      ["b2", [{ field: "amount", ours: -500, theirs: -600 }, {
        field: "external_player_id",
        ours: "ana",
        theirs: "bo"
      }]],
      ["b4", [{ field: "status", ours: "refused", theirs: "applied" }, { field: "amount", ours: 0, theirs: -300 }]]
    ])
    assert.deepStrictEqual(result.totals, [{ field: "bets", ours: 1500, theirs: 1600 }])
    const clean = reconcile({ lines: day, totals, transactions: 5 }, {
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
