/** A certification run's cases: their keys, the amounts they move (in minor units and in words), what each checks and catches. */
import { Schema } from "effect"
import { type Currency, storedCurrency } from "./Currency.ts"
import { formatMinor, type Minor } from "./Money.ts"

/** The cases of a run, in the order they run. */
export const caseKeys = [
  "balance",
  "win",
  "bet",
  "refund",
  "rollback",
  "repeat",
  "replay",
  "repeated_refund",
  "repeated_rollback",
  "same_id_other_body",
  "concurrent",
  "in_flight",
  "hub88_round",
  "hub88_race",
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
  /** The `in_flight` case's bet (4 whole units), the win sent with it (6) and the win sent with its refund (8). */
  readonly inFlightBet: Minor
  readonly inFlightWin: Minor
  readonly inFlightSecondWin: Minor
  /** The `replay` case's bet (9 whole units) and the win between it and its replay (17). */
  readonly replayBet: Minor
  readonly replayWin: Minor
  /** The bets of the cases that repeat a refund (13 whole units) and a rollback (14). */
  readonly repeatedRefundBet: Minor
  readonly repeatedRollbackBet: Minor
  /** The `same_id_other_body` case's bet (15 whole units) and the other body under its event id (16). */
  readonly sameIdBet: Minor
  readonly sameIdOtherBet: Minor
  /**
   * The `hub88_round` case's round, as Hub88 plays one: two bets (22 and 19 whole units), a win of 10 paying the
   * first, and a win of 12 paying it again after the round closed. The wins pay back exactly the stake that stays (the
   * second is rolled back), so the round ends where it started without a refund, which Hub88 never sends.
   */
  readonly hub88FirstBet: Minor
  readonly hub88SecondBet: Minor
  readonly hub88Win: Minor
  readonly hub88LateWin: Minor
  /** The `hub88_race` case's bet, sent with its rollback: 18 whole units. */
  readonly hub88RaceBet: Minor
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
    inFlightBet: 4n * unit,
    inFlightWin: 6n * unit,
    inFlightSecondWin: 8n * unit,
    replayBet: 9n * unit,
    replayWin: 17n * unit,
    repeatedRefundBet: 13n * unit,
    repeatedRollbackBet: 14n * unit,
    sameIdBet: 15n * unit,
    sameIdOtherBet: 16n * unit,
    hub88FirstBet: 22n * unit,
    hub88SecondBet: 19n * unit,
    hub88Win: 10n * unit,
    hub88LateWin: 12n * unit,
    hub88RaceBet: 18n * unit,
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
    inFlightBet: say(amounts.inFlightBet),
    inFlightWin: say(amounts.inFlightWin),
    inFlightSecondWin: say(amounts.inFlightSecondWin),
    replayBet: say(amounts.replayBet),
    replayWin: say(amounts.replayWin),
    repeatedRefundBet: say(amounts.repeatedRefundBet),
    repeatedRollbackBet: say(amounts.repeatedRollbackBet),
    sameIdBet: say(amounts.sameIdBet),
    sameIdOtherBet: say(amounts.sameIdOtherBet),
    hub88FirstBet: say(amounts.hub88FirstBet),
    hub88SecondBet: say(amounts.hub88SecondBet),
    hub88Win: say(amounts.hub88Win),
    hub88LateWin: say(amounts.hub88LateWin),
    hub88RaceBet: say(amounts.hub88RaceBet),
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
  replay: {
    title: "A replay after the balance moved",
    checks: (a) =>
      `A bet of ${a.replayBet}, a win of ${a.replayWin}, then the same bet again (same event id and body, freshly ` +
      "signed): the replay gets the bet's first answer (the balance after the bet, not today's), and moves nothing; " +
      "a refund of the round then gives the balance back.",
    catches: "answers a replayed event with a new answer (today's balance, or another decision) instead of the first"
  },
  repeated_refund: {
    title: "A refund twice",
    checks: (a) =>
      `A bet of ${a.repeatedRefundBet}, then its round's refund sent twice with the same event id (as a retried ` +
      "notification is): both acknowledged, the stake given back once.",
    catches: "applies a repeated refund again (notifications are retried with the same event id)"
  },
  repeated_rollback: {
    title: "A rollback twice",
    checks: (a) =>
      `A bet of ${a.repeatedRollbackBet}, then its rollback sent twice with the same event id: both acknowledged, the ` +
      "stake given back once.",
    catches: "applies a repeated rollback again (notifications are retried with the same event id)"
  },
  same_id_other_body: {
    title: "One event id, another body",
    checks: (a) =>
      `A bet of ${a.sameIdBet}, then a bet of ${a.sameIdOtherBet} under the same event id (validly signed): the ` +
      "second is refused or answered as the first, and moves nothing; a rollback then gives the stake back.",
    catches: "takes an event id it has seen, with another body, as a new event (events must be keyed by their id alone)"
  },
  concurrent: {
    title: "The same event 20 times at once",
    checks: (a) =>
      `A bet of ${a.concurrentBet} sent 20 times at the same moment with one event id: every answer is the same and ` +
      "the stake is taken once; a rollback then gives it back.",
    catches: "double-applies a retry when the copies arrive together (a check-then-act race)"
  },
  in_flight: {
    title: "Two events of one player at once",
    checks: (a) =>
      `A bet of ${a.inFlightBet} and a win of ${a.inFlightWin} of another round sent at the same moment (a win ` +
      `while a bet waits), then the bet's refund and a win of ${a.inFlightSecondWin} at the same moment: each lands, ` +
      "the balance is the sum of both every time; the wins' refunds then give the balance back.",
    catches:
      "loses an update when two events of one player overlap (the balance read, then written back after the other)"
  },
  hub88_round: {
    title: "A Hub88 round",
    checks: (a) =>
      `A round as Hub88 plays it: two bets of ${a.hub88FirstBet} and ${a.hub88SecondBet} (each a transaction of its ` +
      `own), a win of ${a.hub88Win} paying the first, a rollback naming the second (\`rolls_back\`) sent twice with ` +
      `the same event id, then a win of ${a.hub88LateWin} paying the first again after the round closed: both rollbacks ` +
      `acknowledged and the second stake given back once, only that stake, and both wins credited; the round ends ` +
      "where it started.",
    catches:
      "undoes more or less than the bet a rollback names, applies a repeated rollback again, or refuses a win after " +
      "its round's first win or its close (Hub88 rounds hold several bets and wins)"
  },
  hub88_race: {
    title: "A Hub88 bet and its rollback at once",
    checks: (a) =>
      `A bet of ${a.hub88RaceBet} and a rollback naming it sent at the same moment (Hub88 rolls back a bet it gave up ` +
      "on while the bet still waits): whichever arrives first, the rollback is acknowledged and the balance ends " +
      "where it was; a bet taken first is given back by the rollback, a bet arriving after its rollback is refused.",
    catches:
      "loses a stake when a bet and its rollback overlap (the rollback finds no bet and gives nothing back, then the " +
      "bet is taken, or their updates overwrite each other)"
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

/** A problem that is only an answer the service could not read (answerReading's words for one). */
const isUnreadable = (problem: string) => problem.includes("no usable answer") || problem.includes("could not be read")

/**
 * A case's failure in words: what went wrong, then the fault it catches; when every problem is an answer the service
 * could not read, that is the fault named (the case could not judge its own). One period ends each sentence.
 */
export const failureReason = (key: CaseKey, problems: ReadonlyArray<string>) => {
  // A case whose own fault is an unreadable answer (Balance, Insufficient funds) names it in its own words.
  const fault = problems.every(isUnreadable) && !cases[key].catches.includes("cannot")
    ? "answers the service cannot read (see each exchange's reading)"
    : cases[key].catches
  return `${problems.join(" ")} Fault caught: ${fault}.`.replace(/(?<!\.)\.\.(?!\.)/g, ".")
}
