import { Schema } from "effect"
import { randomBytes } from "node:crypto"
import { type Currency, storedCurrency } from "./Currency.ts"
import { formatMinor, type Minor } from "./Money.ts"
import type { PartnerAnswer } from "./Wallet.ts"

/**
 * Wallet certification: a run of cases the service sends to a partner's test wallet, signed as every callback is,
 * each case kept with the exact requests it sent and the answers it got. The partner's wallet is the other half of
 * the money path; these cases are how it shows it applies each event once, refuses what it must and loses nothing.
 * The rules here are pure: what each case checks and catches, how answers and timings are judged, how a run ends.
 */

export const CertificationStatus = Schema.Literals(["running", "passed", "failed", "interrupted"])
export type CertificationStatus = typeof CertificationStatus.Type

export const CaseStatus = Schema.Literals(["passed", "failed", "skipped"])
export type CaseStatus = typeof CaseStatus.Type

/** Who asked for a run: the partner with its test token, an operator in the console, or the admin CLI. */
export const StartedVia = Schema.Literals(["api", "console", "cli"])
export type StartedVia = typeof StartedVia.Type

export const caseKeys = [
  "balance",
  "win",
  "bet",
  "refund",
  "rollback",
  "repeat",
  "concurrent",
  "rollback_first",
  "bad_signature",
  "stale_timestamp",
  "other_body",
  "insufficient_funds",
  "unknown_player",
  "other_currency",
  "two_decimals",
  "zero_bet",
  "conservation",
  "slowness"
] as const
export const CaseKey = Schema.Literals(caseKeys)
export type CaseKey = typeof CaseKey.Type

/**
 * A run plays in one currency, the test player's, and every amount of its cases is in that currency's minor units,
 * scaled by its exponent: a whole unit is 10^exponent minor units (1.00 BRL, 1 JPY, 1.00000000 BTC), so a case moves
 * the same number of whole units in any currency. Every amount is a whole number of minor units (valid at every
 * exponent from 0 to 18) and the amounts of one run are distinct at every exponent, so no two of a run's stakes can be
 * mistaken for each other. The minor-unit case adds minor units to whole ones, so a wallet that rounds to fewer
 * decimals than the currency has (cents in BTC) is caught.
 */
export interface CaseAmounts {
  /** One whole unit: the stake of most cases (1.00 BRL, 1 JPY, 1 BTC). */
  readonly unit: Minor
  /** The free round's win that funds the run: 100 whole units. */
  readonly float: Minor
  /**
   * The stake of the other body whose signature the `other_body` case sends: 10 whole units and one minor unit
   * (10.01 BRL, 11 JPY, 10.00000001 BTC).
   */
  readonly otherBody: Minor
  /** The bet of the `repeat` case, 2 whole units, and its win, 5. */
  readonly repeatBet: Minor
  readonly repeatWin: Minor
  /** The bet of the `concurrent` case: 3 whole units. */
  readonly concurrentBet: Minor
  /** The minor-unit case's bet: 12 whole units and 34 minor units (12.34 BRL, 46 JPY, 12.00000034 BTC). */
  readonly fineBet: Minor
  /** Its win: 7 minor units (0.07 BRL, 7 JPY, 0.00000007 BTC). */
  readonly fineWin: Minor
}

export const caseAmounts = (currency: Currency): CaseAmounts => {
  const unit = 10n ** BigInt(currency.exponent)
  return {
    unit,
    float: 100n * unit,
    otherBody: 10n * unit + 1n,
    repeatBet: 2n * unit,
    repeatWin: 5n * unit,
    concurrentBet: 3n * unit,
    fineBet: 12n * unit + 34n,
    fineWin: 7n
  }
}

/**
 * The currency the `other_currency` case sends a bet in: one that is not the run's (EUR, or USD for a run in EUR).
 * The test player need not hold it: the case asks only that the run's balance does not move.
 */
export const otherCurrencyOf = (currency: Currency): Currency => storedCurrency(currency.code === "EUR" ? "USD" : "EUR")

/** An amount as a report writes it: in the currency's units, with its code (`12.34 BRL`, `46 JPY`). */
export const amountText = (minor: Minor, currency: Currency) => `${formatMinor(minor, currency)} ${currency.code}`

/** A run's amounts in words, as the cases' descriptions name them. */
export type AmountTexts = { readonly [K in keyof CaseAmounts]: string } & {
  readonly zero: string
  readonly fineRefund: string
  readonly other: string
}

export const amountTexts = (currency: Currency): AmountTexts => {
  const amounts = caseAmounts(currency)
  const say = (minor: Minor) => amountText(minor, currency)
  const other = otherCurrencyOf(currency)
  return {
    unit: say(amounts.unit),
    float: say(amounts.float),
    otherBody: say(amounts.otherBody),
    repeatBet: say(amounts.repeatBet),
    repeatWin: say(amounts.repeatWin),
    concurrentBet: say(amounts.concurrentBet),
    fineBet: say(amounts.fineBet),
    fineWin: say(amounts.fineWin),
    zero: say(0n),
    fineRefund: say(amounts.fineBet - amounts.fineWin),
    other: amountText(10n ** BigInt(other.exponent), other)
  }
}

export interface CaseDescription {
  readonly title: string
  /** What the case sends and what a correct wallet does with it, with the amounts of the run's currency. */
  readonly checks: (amounts: AmountTexts) => string
  /** The wallet fault it catches, named in its failure. */
  readonly catches: string
}

/** The cases in the order a run sends them; amounts in the run's currency (see CaseAmounts). */
export const cases: Readonly<Record<CaseKey, CaseDescription>> = {
  balance: {
    title: "Balance",
    checks: () =>
      "A balance callback for the test player, in the run's currency, is answered {\"balance\": <amount>} in that " +
      "currency (no more decimals than it has): the run's starting balance.",
    catches: "a wallet that cannot answer the test player's balance in the contract's form and the run's currency"
  },
  win: {
    title: "Win",
    checks: (a) =>
      `A free round's win of ${a.float} is acknowledged (2xx) and credited once: the balance is ${a.float} more. The ` +
      "run plays with it and takes it back at the end (see Conservation).",
    catches: "a win that is not credited, or credited more than once"
  },
  bet: {
    title: "Bet",
    checks: (a) =>
      `A bet of ${a.unit} is answered with the balance after it, ${a.unit} less, and the balance asked afterwards ` +
      "agrees.",
    catches: "a stake that is not taken, or an answer that is not the balance after it"
  },
  refund: {
    title: "Refund",
    checks: (a) =>
      `A refund of the bet's round (amount ${a.unit}) is acknowledged and gives the stake back: the balance is ` +
      `${a.unit} more.`,
    catches: "a refund that is not applied"
  },
  rollback: {
    title: "Rollback",
    checks: (a) =>
      `A bet of ${a.unit}, then a rollback of it: the stake comes back and the balance is as before the bet.`,
    catches: "a rolled-back bet whose stake is not given back"
  },
  repeat: {
    title: "The same event twice",
    checks: (a) =>
      `A bet of ${a.repeatBet} sent twice with the same event id (freshly signed, as a retry is) gets the same answer ` +
      `and is taken once; its win of ${a.repeatWin} sent twice is credited once; a refund of the round then gives the ` +
      "balance back.",
    catches: "double-applies a retry"
  },
  concurrent: {
    title: "The same event 20 times at once",
    checks: (a) =>
      `A bet of ${a.concurrentBet} sent 20 times at the same moment with one event id: every answer is the same and ` +
      "the stake is taken once; a rollback then gives it back.",
    catches: "double-applies a retry when the copies arrive together (a check-then-act race)"
  },
  rollback_first: {
    title: "A rollback before its bet",
    checks: () =>
      "A rollback of a bet the wallet has not seen is acknowledged; the bet arriving after it is refused and the " +
      "balance does not move.",
    catches: "applies a late bet after its rollback"
  },
  bad_signature: {
    title: "A bad signature",
    checks: (a) => `A bet of ${a.unit} signed with another secret is refused and the balance does not move.`,
    catches: "skips signature checks"
  },
  stale_timestamp: {
    title: "A stale timestamp",
    checks: (a) =>
      `A bet of ${a.unit} signed correctly 10 minutes ago (a replayed callback) is refused and the balance does not ` +
      "move.",
    catches: "skips signature checks (an old signature, a replay, is accepted)"
  },
  other_body: {
    title: "A signature of another body",
    checks: (a) =>
      `A bet of ${a.unit} carrying the signature of another body (the same bet of ${a.otherBody}) is refused and the ` +
      "balance does not move.",
    catches: "skips signature checks (the signature is not checked against the body it came with)"
  },
  insufficient_funds: {
    title: "Insufficient funds",
    checks: (a) =>
      `A bet of ${a.unit} more than the balance is refused with {"error": "insufficient_funds"} and the balance does ` +
      "not move.",
    catches: "takes a stake the balance cannot cover, or refuses it in a form the service cannot read"
  },
  unknown_player: {
    title: "An unknown player",
    checks: () =>
      "A balance and a bet for a player the wallet never saw are answered {\"error\": \"unknown_player\"}; the test " +
      "player's balance does not move.",
    catches: "answers for a player it does not know"
  },
  other_currency: {
    title: "Another currency",
    checks: (a) =>
      `A bet of ${a.other} for the test player, in a currency that is not the run's: each currency of a player is a ` +
      "balance of its own, so whatever the wallet answers (a refusal, or its balance in that currency) the balance " +
      "in the run's currency does not move; a stake it took is given back by a rollback.",
    catches: "mixes currencies (a stake in one currency taken from the player's balance in another)"
  },
  two_decimals: {
    title: "Amounts to the minor unit",
    checks: (a) =>
      `A bet of ${a.fineBet}, a win of ${a.fineWin} and the round's refund (${a.fineRefund}) move the balance by ` +
      "exactly those amounts, to the currency's smallest unit.",
    catches: "rounds amounts"
  },
  zero_bet: {
    title: "A zero bet",
    checks: (a) =>
      `A bet of ${a.zero} is answered in the contract's form (the balance, unchanged, or a refusal) and moves nothing.`,
    catches: "moves money, or fails, on a zero stake"
  },
  conservation: {
    title: "Conservation",
    checks: (a) =>
      `The free round's win is taken back by a refund of its round (-${a.float}), and the balance at the end equals ` +
      `the balance at the start plus what the cases moved: ${a.zero}, since every case gives back what it moved.`,
    catches: "loses or creates money over the run"
  },
  slowness: {
    title: "Answer times",
    checks: () =>
      "Every call of the run is answered within PARTNER_CALLBACK_TIMEOUT (3 s by default): p50 and p99 of the " +
      "answer times, against it. Past it the service refuses the bet and rolls it back.",
    catches: "answers after the time-out"
  }
}

/** What a case checks, with the amounts of a run in `currency`. */
export const caseChecks = (key: CaseKey, currency: Currency) => cases[key].checks(amountTexts(currency))

/** A case's failure in words: what went wrong, then the fault it catches. */
export const failureReason = (key: CaseKey, problems: ReadonlyArray<string>) =>
  `${problems.join(" ")} Fault caught: ${cases[key].catches}.`

/** One request a run sent (exactly as sent) and what came back. */
export const Exchange = Schema.Struct({
  /** What the request was, in words: `bet 1.00 BRL (round cert_…_r1)`. */
  label: Schema.String,
  sentAt: Schema.Date,
  /** How long the answer took; the time-out when none came. */
  millis: Schema.Int,
  request: Schema.Struct({ headers: Schema.Record(Schema.String, Schema.String), body: Schema.String }),
  /** The answer's status and body; null when none came. A body past 64 KiB is not read: null. */
  response: Schema.NullOr(Schema.Struct({ status: Schema.Int, body: Schema.NullOr(Schema.String) })),
  /** Why no answer came (a time-out, a refused connection); null when one did. */
  error: Schema.NullOr(Schema.String),
  /** How the service reads the answer: `balance 99.00 BRL`, `refused: insufficient funds`, `acknowledged (2xx)`, … */
  reading: Schema.String
})
export type Exchange = typeof Exchange.Type

/** The answer times of a run's calls, against the time-out. */
export const Timing = Schema.Struct({
  calls: Schema.Int,
  p50Millis: Schema.Int,
  p99Millis: Schema.Int,
  maxMillis: Schema.Int,
  timedOut: Schema.Int,
  timeoutMillis: Schema.Int
})
export type Timing = typeof Timing.Type

export const CaseResult = Schema.Struct({
  key: CaseKey,
  status: CaseStatus,
  /** Why it failed (naming the fault it catches) or was not run; null when it passed. */
  reason: Schema.NullOr(Schema.String),
  /**
   * The test player's balance when the case began, what it should be at its end, and what it was: minor units of the
   * run's currency.
   */
  balanceBefore: Schema.NullOr(Schema.BigInt),
  expectedBalance: Schema.NullOr(Schema.BigInt),
  balanceAfter: Schema.NullOr(Schema.BigInt),
  /** The answer times (the slowness case only). */
  timing: Schema.NullOr(Timing),
  exchanges: Schema.Array(Exchange),
  finishedAt: Schema.Date
})
export type CaseResult = typeof CaseResult.Type

export const Certification = Schema.Struct({
  /** `cert_` and 16 hex digits. */
  id: Schema.String,
  partnerId: Schema.Int,
  externalPlayerId: Schema.String,
  /** The run's currency (its code): the test player's row it plays with, and every amount of its cases. */
  currency: Schema.String,
  /** Where the run sent its callbacks: the test callback URL, or the sandbox partner wallet's. */
  callbackUrl: Schema.String,
  /** The partner (`partner acme`), an operator's e-mail, or the CLI's `user@host`. */
  startedBy: Schema.String,
  startedVia: StartedVia,
  status: CertificationStatus,
  summary: Schema.NullOr(Schema.String),
  timeoutMillis: Schema.Int,
  startedAt: Schema.Date,
  finishedAt: Schema.NullOr(Schema.Date),
  /** The cases finished so far, in the run's order. */
  cases: Schema.Array(CaseResult)
})
export type Certification = typeof Certification.Type

/** A run's id: random, so its event ids meet no other run's, here or on another deployment calling the same wallet. */
export const newCertificationId = () => `cert_${randomBytes(8).toString("hex")}`

export const isCertificationId = (id: string) => /^cert_[0-9a-f]{16}$/.test(id)

/** The event id of a run's n-th callback: `evt_cert_<run>_<n>`, never the `evt_<hex>` of real traffic. */
export const certificationEventId = (runId: string, n: number) => `evt_${runId}_${String(n).padStart(3, "0")}`

/** Marks a body as a certification run's: the `certification` field, signed with the body. */
export const certificationHeader = "x-partner-certification"

/**
 * A callback body as the wallet sends it, made a certification run's: its event id (and a rollback's `rolls_back`)
 * replaced by the run's own, and `certification: {run, case}` added at the end. The keys keep their order.
 */
export const certificationBody = (
  body: string,
  run: { readonly id: string; readonly key: CaseKey },
  eventId: string,
  rollsBack?: string
) =>
  JSON.stringify({
    ...JSON.parse(body) as Record<string, unknown>,
    event_id: eventId,
    ...(rollsBack === undefined ? {} : { rolls_back: rollsBack }),
    certification: { run: run.id, case: run.key }
  })

/** A balance the wallet reported against the one expected, in words: nothing when they agree. */
export const compared = (
  what: string,
  observed: Minor | undefined,
  expected: Minor,
  currency: Currency
): ReadonlyArray<string> =>
  observed === undefined
    ? [`The balance could not be read ${what}.`]
    : observed === expected
    ? []
    : [
      `${what[0].toUpperCase()}${what.slice(1)} the balance is ${amountText(observed, currency)}, not ` +
      `${amountText(expected, currency)} (${observed > expected ? "+" : ""}${
        amountText(observed - expected, currency)
      }).`
    ]

/** How the service reads a partner's answer to a balance or a bet (in `currency`, the call's), in words. */
export const answerReading = (answer: PartnerAnswer, currency: Currency): string => {
  switch (answer._tag) {
    case "Balance":
      return `balance ${amountText(answer.balance, currency)}`
    case "InsufficientFunds":
      return answer.balance === null
        ? "refused: insufficient funds"
        : `refused: insufficient funds (balance ${amountText(answer.balance, currency)})`
    case "UnknownPlayer":
      return "refused: unknown player"
    case "Unavailable":
      return `no usable answer: ${answer.reason}`
  }
}

/** The value at percentile `p` (0..100) of `values`, by the nearest-rank method; 0 for none. */
export const percentile = (values: ReadonlyArray<number>, p: number) => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]
}

/** The answer times of these exchanges against the time-out; a call that got no answer in time counts as timed out. */
export const timingOf = (exchanges: ReadonlyArray<Exchange>, timeoutMillis: number, timedOut: number): Timing => {
  const millis = exchanges.map((exchange) => exchange.millis)
  return {
    calls: millis.length,
    p50Millis: percentile(millis, 50),
    p99Millis: percentile(millis, 99),
    maxMillis: millis.length === 0 ? 0 : Math.max(...millis),
    timedOut,
    timeoutMillis
  }
}

/** What is wrong with these answer times, in words; none when every call was answered within the time-out. */
export const timingProblems = (timing: Timing): ReadonlyArray<string> => {
  const figures =
    `p50 ${timing.p50Millis} ms, p99 ${timing.p99Millis} ms, slowest ${timing.maxMillis} ms over ${timing.calls} ` +
    `calls, against the ${timing.timeoutMillis} ms time-out.`
  if (timing.timedOut > 0) {
    return [
      `${timing.timedOut} of ${timing.calls} calls got no answer within the ${timing.timeoutMillis} ms time-out (${figures}) ` +
      "The service refuses a bet the wallet does not answer in time and rolls it back."
    ]
  }
  if (timing.p99Millis >= timing.timeoutMillis) return [`Answers came at the time-out's edge: ${figures}`]
  return []
}

/** A run's end from its cases: passed when none failed (skipped cases fail a run too: something stopped them). */
export const outcome = (results: ReadonlyArray<Pick<CaseResult, "key" | "status">>): {
  readonly status: "passed" | "failed"
  readonly summary: string
} => {
  const failed = results.filter((result) => result.status === "failed").map((result) => cases[result.key].title)
  const skipped = results.filter((result) => result.status === "skipped").length
  const passed = results.length - failed.length - skipped
  const counts = `${passed} of ${results.length} cases passed`
  if (failed.length === 0 && skipped === 0) return { status: "passed", summary: `${counts}.` }
  return {
    status: "failed",
    summary: `${counts}${failed.length === 0 ? "" : `; failed: ${failed.join(", ")}`}` +
      `${skipped === 0 ? "" : `; ${skipped} not run`}.`
  }
}

/** Whether a partner's live token may be issued now, and why not: the setting, and its latest finished run. */
export const liveTokenRefusal = (
  slug: string,
  requirement: { readonly required: boolean; readonly latest: CertificationStatus | null }
): string | null => {
  if (!requirement.required || requirement.latest === "passed") return null
  const latest = requirement.latest === null
    ? "it has no finished run yet"
    : `its latest run ${requirement.latest === "failed" ? "failed" : "was interrupted"}`
  return `The live token of ${slug} is issued only after a passed wallet certification, and ${latest}: ` +
    `run one (partners certify ${slug} --player <test player>, or the console's Certification page) first.`
}

/** A live token an operator asked for is withheld: the partner requires a passed run and has none (liveTokenRefusal). */
export class LiveTokenWithheld extends Schema.TaggedError<LiveTokenWithheld>()("LiveTokenWithheld", {
  message: Schema.String
}) {}
