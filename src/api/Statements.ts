import { Schema, SchemaGetter } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Environment } from "../domain/Environment.ts"
import { isPlainDecimal } from "../domain/Money.ts"
import { isDay } from "../domain/Statements.ts"
import { StatementLineCodec, StatementSummaryCodec, WireAmount } from "../domain/StatementDocument.ts"
import { TransactionKind } from "../domain/Wallet.ts"
import { IsoDate } from "../domain/IsoDate.ts"
import { Envelope } from "./Envelope.ts"
import { NotFound, TooManyRequests, ValidationFailed } from "./Errors.ts"
import { PageMeta, PageQuery, PerPageQuery } from "./Paging.ts"
import { RequestValidation } from "./RequestValidation.ts"

/**
 * Daily statements: a partner reads the statement of a closed UTC day of its token's environment (JSON in the
 * envelope, or the signed JSON lines document itself), and posts its own books of a day to get the differences.
 */

/** What a partner may post to reconcile a day: its books of one day, read and compared in memory. */
export const reconciliationMaxBytes = "4 MiB"

/** The media type of the statement document (and of what a partner posts to reconcile). */
export const jsonLines = "application/x-ndjson"

export const DayParam = Schema.String.check(
  Schema.makeFilter(isDay, { message: "The :attribute field must be a date (YYYY-MM-DD)." })
).annotate({ description: "A UTC day, YYYY-MM-DD", examples: ["2026-11-22"] })

/** The statement's summary (the document's first line) on the wire. */
export const StatementSummaryEntry = Schema.toEncoded(StatementSummaryCodec)
/** A transaction line of the document on the wire. */
export const StatementLineEntry = Schema.toEncoded(StatementLineCodec)

const exampleSummary: typeof StatementSummaryEntry.Type = {
  record: "statement",
  partner: "acme-bets",
  environment: "live",
  date: "2026-11-22",
  from: "2026-11-22T00:00:00.000Z",
  to: "2026-11-23T00:00:00.000Z",
  computed_at: "2026-11-23T00:01:02.345Z",
  counts: { transactions: 3, bets: 2, refused_bets: 1, wins: 1, refunds: 0, rollbacks: 1 },
  currencies: [
    {
      currency: "BRL",
      totals: { bets: 10, wins: 4.5, refunds: 0, rollbacks: 2, net: -5.5 },
      counts: { transactions: 2, bets: 1, refused_bets: 1, wins: 1, refunds: 0, rollbacks: 1 }
    },
    {
      currency: "BTC",
      totals: {
        bets: "0.00050000",
        wins: "0.00000000",
        refunds: "0.00000000",
        rollbacks: "0.00000000",
        net: "-0.00050000"
      },
      counts: { transactions: 1, bets: 1, refused_bets: 0, wins: 0, refunds: 0, rollbacks: 0 }
    }
  ]
}

const exampleLine: typeof StatementLineEntry.Type = {
  record: "transaction",
  transaction_id: "txn-88231",
  kind: "bet",
  status: "applied",
  refusal: null,
  note: null,
  rolled_back: false,
  external_player_id: "player-42",
  round_id: "round-5521",
  game_code: "vs20fruitsw",
  provider_code: "pragmatic-play",
  currency: "BRL",
  bet: 10,
  win: 4.5,
  amount: -5.5,
  created_at: "2026-11-22T13:00:02.120Z",
  settled_at: "2026-11-22T13:00:02.410Z"
}

/** A stored statement in a list (the console's Statements page, the portal's): its totals per currency of the day, each in that currency's units. */
export const StatementListing = Schema.Struct({
  partner: Schema.String,
  environment: Environment,
  date: Schema.String,
  transactions: Schema.Int,
  currencies: Schema.Array(Schema.Struct({
    currency: Schema.String,
    transactions: Schema.Int,
    totals: Schema.Struct({
      bets: WireAmount,
      wins: WireAmount,
      refunds: WireAmount,
      rollbacks: WireAmount,
      net: WireAmount
    })
  })).annotate({ description: "One entry per currency the day had (none for a day without activity), by code" }),
  computedAt: IsoDate
}).pipe(Schema.encodeKeys({ computedAt: "computed_at" }))

export const StatementData = Schema.Struct({
  statement: StatementSummaryEntry,
  document: Schema.Struct({
    sha256: Schema.String.annotate({ description: "SHA-256 (hex) of the JSON lines document (`format=jsonl`)" }),
    bytes: Schema.Int,
    lines: Schema.Int.annotate({ description: "Lines of the document: the summary and one per transaction" })
  }),
  signature: Schema.String.annotate({
    description:
      "`v1=<hex>` HMAC-SHA256 of the JSON lines document with the environment's webhook secret (one per secret " +
      "valid now, comma-separated, newest first); the same value as that answer's `X-Statement-Signature`"
  }),
  transactions: Schema.Array(StatementLineEntry),
  meta: PageMeta
})

/** A statement as the envelope carries it. */
export const exampleStatementData: typeof StatementData.Encoded = {
  statement: exampleSummary,
  document: { sha256: "5f1c…", bytes: 812, lines: 3 },
  signature: "v1=3a9d…",
  transactions: [exampleLine],
  meta: { page: 1, per_page: 50, total: 2 }
}

/** The JSON lines document, its signature and digest in headers. */
export const StatementDocument = HttpApiSchema.WithHeaders(HttpApiSchema.StreamUint8Array({ contentType: jsonLines }), {
  "x-statement-signature": Schema.String.annotate({
    description: "`v1=<hex>`: HMAC-SHA256 of this body, keyed with the environment's webhook secret"
  }),
  "x-statement-sha256": Schema.String.annotate({ description: "SHA-256 (hex) of this body" })
}).annotate({
  description:
    "The statement document: JSON lines, the summary (`record: \"statement\"`) then one line per transaction " +
    "(`record: \"transaction\"`) in the order they were created, each ending with a newline"
})

const signedAmountMessage =
  "The :attribute field must be an amount written plainly (like -5.5 or \"12.50\"), with no more decimals than its " +
  "currency has (a string for currencies of more than 3)."

/** Whether a text is a plain signed decimal (`-5.5`, `12.50`, `0.00000001`). */
const isSignedDecimal = (text: string) => isPlainDecimal(text.startsWith("-") ? text.slice(1) : text)

/**
 * A signed amount as the partner posts it (a number or decimal text), kept as the text it says: it is read in its
 * currency's minor units once that is known (`signedMinorOf`), exactly; never rounded.
 */
const SignedAmount = Schema.Union(
  [Schema.String, Schema.Finite].map((member) => member.annotate({ message: signedAmountMessage }))
)
  .pipe(
    Schema.decodeTo(
      Schema.String.check(Schema.makeFilter(isSignedDecimal, { message: signedAmountMessage })),
      {
        decode: SchemaGetter.transform((value: string | number) => String(value)),
        encode: SchemaGetter.transform((text: string) => text)
      }
    )
  ).annotate({ message: signedAmountMessage })

const PostedCurrencyCode = Schema.String.annotate({
  description: "A currency code (BRL, JPY, BTC): what the amounts beside it are in"
})

const PostedTotalsFields = Schema.Struct({
  bets: Schema.optionalKey(SignedAmount),
  wins: Schema.optionalKey(SignedAmount),
  refunds: Schema.optionalKey(SignedAmount),
  rollbacks: Schema.optionalKey(SignedAmount),
  net: Schema.optionalKey(SignedAmount)
})

/**
 * The partner's totals line (`record: "statement"`): the totals it has, per currency under `currencies` (the
 * statement's own summary will do); those left out are not compared. `totals` alone (no currency) is read in the
 * day's one currency, and refused when the day has several.
 */
export const PostedSummary = Schema.Struct({
  record: Schema.Literal("statement"),
  currencies: Schema.optionalKey(Schema.Array(Schema.Struct({
    currency: PostedCurrencyCode,
    totals: Schema.optionalKey(PostedTotalsFields),
    counts: Schema.optionalKey(Schema.Struct({ transactions: Schema.optionalKey(Schema.Int) }))
  }))),
  totals: Schema.optionalKey(PostedTotalsFields),
  counts: Schema.optionalKey(Schema.Struct({ transactions: Schema.optionalKey(Schema.Int) }))
})

/** One transaction as the partner's books have it (`record: "transaction"`, or no `record`). */
export const PostedLine = Schema.Struct({
  record: Schema.optionalKey(Schema.Literal("transaction")),
  transaction_id: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)),
  kind: Schema.optionalKey(
    TransactionKind.annotate({
      description:
        "bet (the default), refund, credit or rollback (the last two: aggregators that send wins and rollbacks apart, such as Hub88)"
    })
  ),
  status: Schema.optionalKey(Schema.Literals(["applied", "refused"])),
  currency: Schema.optionalKey(PostedCurrencyCode.annotate({
    description: "The currency of its amounts; without it, the statement's transaction's currency"
  })),
  bet: Schema.optionalKey(SignedAmount),
  win: Schema.optionalKey(SignedAmount),
  amount: Schema.optionalKey(SignedAmount),
  round_id: Schema.optionalKey(Schema.String),
  external_player_id: Schema.optionalKey(Schema.String)
})

export const PostedRecord = Schema.Union([PostedSummary, PostedLine])

const DifferenceEntry = Schema.Struct({
  field: Schema.String,
  currency: Schema.optionalKey(Schema.String.annotate({
    description: "The currency of an amount's two values (each in its units), and of a currency's totals"
  })),
  ours: Schema.NullOr(Schema.Union([Schema.String, Schema.Finite, Schema.Boolean])),
  theirs: Schema.NullOr(Schema.Union([Schema.String, Schema.Finite, Schema.Boolean]))
})

export const ReconciliationData = Schema.Struct({
  date: Schema.String,
  environment: Environment,
  reconciled: Schema.Boolean.annotate({
    description: "True when nothing differs: every transaction and total you sent matches"
  }),
  counts: Schema.Struct({
    ours: Schema.Int.annotate({ description: "Transactions in the statement" }),
    theirs: Schema.Int.annotate({ description: "Transactions you sent" }),
    matched: Schema.Int,
    missing_at_partner: Schema.Int,
    missing_here: Schema.Int,
    different: Schema.Int
  }),
  totals: Schema.Array(DifferenceEntry).annotate({
    description: "The totals you sent that differ from the statement's: each currency's (never added across " +
      "currencies), and the day's count of transactions"
  }),
  missing_at_partner: Schema.Array(StatementLineEntry).annotate({
    description: "Applied transactions of the statement you did not send (the first 1000)"
  }),
  missing_here: Schema.Array(Schema.Struct({ transaction_id: Schema.String, kind: TransactionKind })).annotate({
    description: "Transactions you sent that are not in the statement (the first 1000)"
  }),
  different: Schema.Array(Schema.Struct({
    transaction_id: Schema.String,
    kind: TransactionKind,
    differences: Schema.Array(DifferenceEntry)
  })).annotate({
    description: "Transactions in both whose fields differ, with each field's two values (the first 1000)"
  })
})

export class StatementsGroup extends HttpApiGroup.make("statements")
  .add(
    HttpApiEndpoint.get("statement", "/wallet/statements/:date", {
      params: { date: DayParam },
      query: {
        format: Schema.optional(
          Schema.Literals(["json", "jsonl"]).annotate({
            message: "The selected :attribute is invalid. Use json or jsonl.",
            description:
              "`json` (the envelope, the default) or `jsonl` (the signed document); `Accept: application/x-ndjson` " +
              "also asks for the document"
          })
        ),
        page: Schema.optional(PageQuery),
        per_page: Schema.optional(PerPageQuery)
      },
      success: [
        Envelope("WalletStatementResponse", StatementData, { example: exampleStatementData }),
        StatementDocument
      ],
      error: NotFound
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "The statement of a closed UTC day: totals, counts and every transaction, signed",
      description:
        "For the token's environment. As JSON (the envelope; the transactions paged with `page` and `per_page`) or, " +
        "with `format=jsonl` or `Accept: application/x-ndjson`, as the statement document itself: JSON lines, a summary " +
        "then one line per transaction, signed in `X-Statement-Signature` (HMAC-SHA256 of the body with your webhook " +
        "secret). A closed day without activity has an empty statement. 404 while the day has not ended or is not closed " +
        "yet (within minutes of its end), and for days before statements began."
    }))
  )
  .add(
    HttpApiEndpoint.post("reconcile", "/wallet/statements/:date/reconciliation", {
      params: { date: DayParam },
      payload: HttpApiSchema.StreamNdjson({
        schema: PostedRecord,
        contentType: [jsonLines, "application/jsonl"],
        maxBytes: reconciliationMaxBytes,
        maxElementBytes: "16 KiB"
      }),
      success: Envelope("WalletReconciliationResponse", ReconciliationData, {
        example: {
          date: "2026-11-22",
          environment: "live",
          reconciled: false,
          counts: { ours: 2, theirs: 1, matched: 1, missing_at_partner: 0, missing_here: 0, different: 0 },
          totals: [{ field: "net", currency: "BRL", ours: -5.5, theirs: -6 }],
          missing_at_partner: [],
          missing_here: [],
          different: []
        }
      }),
      error: [NotFound, ValidationFailed, TooManyRequests]
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary:
        "Reconcile a day: your own transactions (and totals) against the statement, the differences by transaction",
      description: "Post JSON lines (`Content-Type: application/x-ndjson`, up to 4 MiB; the day is looked up first, " +
        "so a day without a statement is a 404 before the body is read; one run at a time per partner, a second " +
        "a 429; each run counts as 10 requests against the rate limit): optionally a totals line " +
        "`{\"record\": \"statement\", \"currencies\": [{\"currency\": \"BRL\", \"totals\": {…}}]}`, and one line per " +
        "transaction you applied, `{\"transaction_id\", \"kind\", \"currency\", \"amount\", …}` (a line of the statement " +
        "document itself will do). Amounts are read in their currency's units exactly (a string for currencies of " +
        "more than 3 decimals); a line without `currency` is read in its transaction's. Each field you send is " +
        "compared; those you leave out are not; totals are compared per currency. A transaction is its kind (bet by " +
        "default) and its id. 422 names the first line that cannot be read (an amount finer than its currency, a " +
        "currency this service does not know), or a transaction listed twice."
    }))
  )
  .annotateMerge(OpenApi.annotations({
    description:
      "Daily statements of the wallet, for reconciliation: computed once after each UTC day ends, signed with " +
      "the environment's webhook secret."
  }))
{}
